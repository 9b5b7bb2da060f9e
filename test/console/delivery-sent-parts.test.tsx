import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { SentParts } from '../../console/src/screens/delivery.tsx';

describe('a message split over several, on the delivery screen', () => {
  it('lists every part in order, with the relay id where there is one', () => {
    const html = renderToString(
      <SentParts
        parts={[
          { msg_id: 'm-1', upstream_msg_id: 'up-1' },
          { msg_id: 'm-1.2', upstream_msg_id: null },
        ]}
      />,
    );
    expect(html).toBe('<ol><li><code>m-1</code> → <code>up-1</code></li><li><code>m-1.2</code></li></ol>');
  });
});
