import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { Link, match } from '../../console/src/router.tsx';

describe('console router', () => {
  it('matches app paths with captures', () => {
    expect(match('', '')).toEqual({});
    expect(match('deliveries/:msgId', 'deliveries/abc%2F1')).toEqual({ msgId: 'abc/1' });
    expect(match('deliveries/:msgId', 'deliveries')).toBeNull();
    expect(match('bots', 'pipes')).toBeNull();
  });

  it('a malformed % escape matches nothing (the not-found screen) instead of throwing', () => {
    expect(match('deliveries/:msgId', 'deliveries/%E0%A4%A')).toBeNull();
    expect(match('deliveries/:msgId', 'deliveries/100%')).toBeNull();
    expect(match('bots', '%bots')).toBeNull();
  });

  it('draws links under the console base', () => {
    expect(renderToString(<Link to="pipes/7">x</Link>)).toBe('<a href="/console/pipes/7">x</a>');
  });
});
