import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { STARTER_TEMPLATES } from '../../console/src/first-pipe-plan.ts';
import { curlExample, rateForm, rateFromForm, sampleBody, shellQuote } from '../../console/src/pipe-model.ts';
import { CurlBlock } from '../../console/src/ui/curl-block.tsx';

const url = 'http://localhost:3000/api/v3/message/send-pipemsg?access_token=hrp_1.abc-_';

describe('the curl example', () => {
  it('posts the plain body a pipe without template takes', () => {
    expect(curlExample(url, sampleBody(null))).toBe(
      `curl -X POST '${url}' -H 'Content-Type: application/json' -d '{"content":"hello"}'`,
    );
  });

  it("posts a template pipe's sample data", () => {
    expect(curlExample(url, sampleBody({ test_data: STARTER_TEMPLATES.kmarkdown.test_data }))).toBe(
      `curl -X POST '${url}' -H 'Content-Type: application/json' -d '{"title":"Hello from Herald","text":"Your first pipe works."}'`,
    );
    expect(sampleBody({ test_data: '  ' })).toBe('{}');
  });

  it('quotes single quotes for the shell', () => {
    expect(shellQuote(`it's`)).toBe(`'it'\\''s'`);
    expect(curlExample(url, sampleBody(null, "it's done"))).toContain(`-d '{"content":"it'\\''s done"}'`);
  });

  it('is drawn with a copy button', () => {
    const html = renderToString(<CurlBlock url={url} body='{"content":"hello"}' />);
    expect(html).toContain('<pre class="raw curl-cmd">curl -X POST');
    expect(html).toContain('<button type="button" class="secondary">');
  });
});

describe('rate settings', () => {
  const inForce = { capacity: 60, per_second: 2 };

  it('starts from the pipe: the default, or its own limit', () => {
    expect(rateForm({ rate_limit: null, rate_limit_in_force: inForce })).toEqual({
      custom: false,
      capacity: '60',
      per_second: '2',
    });
    expect(
      rateForm({
        rate_limit: { capacity: 5, per_second: 0.5 },
        rate_limit_in_force: { capacity: 5, per_second: 0.5 },
      }),
    ).toEqual({ custom: true, capacity: '5', per_second: '0.5' });
  });

  it('sends null for the default and a checked pair otherwise', () => {
    expect(rateFromForm({ custom: false, capacity: 'junk', per_second: '' })).toEqual({
      ok: true,
      rate_limit: null,
    });
    expect(rateFromForm({ custom: true, capacity: '10', per_second: '0.5' })).toEqual({
      ok: true,
      rate_limit: { capacity: 10, per_second: 0.5 },
    });
    expect(rateFromForm({ custom: true, capacity: '1.5', per_second: '1' })).toEqual({
      ok: false,
      field: 'capacity',
    });
    expect(rateFromForm({ custom: true, capacity: '0', per_second: '1' })).toEqual({
      ok: false,
      field: 'capacity',
    });
    expect(rateFromForm({ custom: true, capacity: '1000001', per_second: '1' })).toEqual({
      ok: false,
      field: 'capacity',
    });
    expect(rateFromForm({ custom: true, capacity: '10', per_second: '0.001' })).toEqual({
      ok: false,
      field: 'per_second',
    });
    expect(rateFromForm({ custom: true, capacity: '10', per_second: '' })).toEqual({
      ok: false,
      field: 'per_second',
    });
  });
});
