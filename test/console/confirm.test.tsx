import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { Confirm } from '../../console/src/ui/components.tsx';

describe('console confirm dialog', () => {
  it('gives each dialog of a screen its own title id', () => {
    const html = renderToString(
      <div>
        <Confirm open={false} title="Remove A?" onConfirm={() => {}} onCancel={() => {}}>
          a
        </Confirm>
        <Confirm open={false} title="Remove B?" onConfirm={() => {}} onCancel={() => {}}>
          b
        </Confirm>
      </div>,
    );
    const labelled = [...html.matchAll(/aria-labelledby="([^"]+)"/g)].map((m) => m[1]);
    const ids = [...html.matchAll(/<h2 id="([^"]+)"/g)].map((m) => m[1]);
    expect(labelled).toHaveLength(2);
    expect(new Set(labelled).size).toBe(2);
    expect(ids).toEqual(labelled);
  });
});
