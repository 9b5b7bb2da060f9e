import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../console/src/api.ts';
import { lang } from '../../console/src/i18n.ts';
import { LimitWarnings, PreviewError, PreviewSource } from '../../console/src/studio/preview-parts.tsx';
import { html, textOf } from './html.ts';

beforeEach(() => {
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = 'en-US';
});

const noop = () => {};

describe('the preview parts', () => {
  it('says whether the preview uses the test data or a captured payload, with a way back', () => {
    expect(textOf(html(<PreviewSource source={{ kind: 'test' }} onBack={noop} />))).toBe(
      'Rendered with the test data',
    );
    const capture = {
      id: 'c1',
      received_at: '2030-01-01T00:00:00.000Z',
      content_type: 'application/json',
      size: 2,
      headers: {},
      body: '{}',
      too_large: false,
    };
    const out = textOf(html(<PreviewSource source={{ kind: 'capture', capture }} onBack={noop} />));
    expect(out).toMatch(/^Rendered with the payload captured .*2030/);
    expect(out).toContain('Back to the test data');
  });

  it('shows a template error as one marked in the editor, and says the drawing is the last good one', () => {
    const error = new ApiError(400, 40010, 'Template does not compile (line 2, column 4): Unexpected "}".', {
      line: 2,
      column: 4,
      excerpt: 'x',
    });
    const out = textOf(html(<PreviewError error={error} hasMessage={true} />));
    expect(out).toContain('The template has an error (marked in the editor):');
    expect(out).toContain('Template does not compile (line 2, column 4): Unexpected "}". (40010)');
    expect(out).toContain('Below is the last render that worked.');
    expect(textOf(html(<PreviewError error={error} hasMessage={false} />))).not.toContain('last render');
  });

  it('shows a card error with the rendered line it is about', () => {
    const error = new ApiError(400, 40013, 'Card message cannot be parsed (json): line 7, column 3: …', {
      format: 'json',
      line: 7,
      column: 3,
      excerpt: '  }{',
    });
    const markup = html(<PreviewError error={error} hasMessage={false} />);
    expect(textOf(markup)).toContain('The rendered output is not a valid card:');
    expect(textOf(markup)).toContain('Rendered output, line 7, column 3:');
    expect(markup).toContain('<pre class="msg-raw">  }{</pre>');
  });

  it('shows any other error as it is, and nothing without one', () => {
    const out = textOf(
      html(<PreviewError error={new ApiError(404, 40401, 'channel not found')} hasMessage={false} />),
    );
    expect(out).toBe('channel not found (40401)');
    expect(html(<PreviewError error={undefined} hasMessage={true} />)).toBe('');
  });

  it('lists the limits the rendered message is near, in both languages, and nothing when none', () => {
    const cards = [{ type: 'card', modules: Array.from({ length: 45 }, () => ({ type: 'divider' })) }];
    const message = { type: 10, content: JSON.stringify(cards) };
    expect(textOf(html(<LimitWarnings message={message} />))).toBe(
      'Near the platform’s limitsModules in all cards near the limit: 45 of 50. Longer data may go over it.',
    );
    lang.value = 'zh-CN';
    expect(textOf(html(<LimitWarnings message={message} />))).toContain('模块总数接近上限：45 / 50');
    expect(html(<LimitWarnings message={{ type: 9, content: 'short' }} />)).toBe('');
  });
});
