import { describe, expect, it } from 'vitest';
import { MessageTooLongError } from '../../src/render/errors/message-too-long-error.js';
import { compileTemplate, fitRendered, renderMessage } from '../../src/render/index.js';
import { unfoldJson } from '../../src/render/render-message.js';

describe('renderMessage', () => {
  it('msgtype 1 gives a KMarkdown message (type 9)', () => {
    expect(renderMessage({ content: '**{{ data.name }}**', msgtype: 1 }, { name: 'Bob' }, {})).toEqual({
      type: 9,
      content: '**Bob**',
      warnings: [],
      warningCount: 0,
    });
  });

  it("answers the render's warnings with the message, a card's too", () => {
    const kmd = renderMessage({ content: '{{ data.tags }}', msgtype: 1 }, { tags: ['a'] }, {});
    expect(kmd).toEqual({
      type: 9,
      content: 'Array',
      warnings: [{ message: 'Array to string conversion', line: 1, column: 1 }],
      warningCount: 1,
    });
    const content =
      '[{"type":"card","modules":[{"type":"section","text":{"type":"plain-text","content":"{{ data.n + 1 }}"}}]}]';
    const card = renderMessage({ content, msgtype: 2 }, { n: '2 apples' }, {});
    expect(card.type).toBe(10);
    expect(card.content).toContain('"content":"3"');
    // at the operator: a column of the template's text, not of the card
    const column = content.indexOf('+') + 1;
    expect(card.warnings).toEqual([{ message: 'A non-numeric value encountered', line: 1, column }]);
  });

  it('accepts a template compiled once', () => {
    const compiled = compileTemplate('{{ data.n + 1 }}');
    expect(renderMessage({ compiled, msgtype: 1 }, { n: 1 }, {}).content).toBe('2');
    expect(renderMessage({ compiled, msgtype: 1 }, { n: 2 }, {}).content).toBe('3');
  });

  it('refuses KMarkdown longer than 8,000 characters (emoji count once)', () => {
    expect(
      renderMessage({ content: '{{ "😀"|format }}{% for i in 1..7999 %}x{% endfor %}', msgtype: 1 }, {}, {})
        .content,
    ).toHaveLength(8001);
    expect(() =>
      renderMessage({ content: '{% for i in 1..8001 %}x{% endfor %}', msgtype: 1 }, {}, {}),
    ).toThrow(MessageTooLongError);
  });

  it('msgtype 2 renders card JSON and hands it to the card module (type 10)', () => {
    const tpl =
      '[{"type": "card", "modules": [{"type": "section", "text": {"type": "kmarkdown", "content": "{{ data.t|json_escape }}"}}]}]';
    const msg = renderMessage({ content: tpl, msgtype: 2 }, { t: 'a "quoted" line\nnext' }, {});
    expect(msg.type).toBe(10);
    const cards = JSON.parse(msg.content) as { modules: { text: { content: string } }[] }[];
    expect(cards[0]!.modules[0]!.text.content).toBe('a "quoted" line\nnext');
  });
});

const CARD_TEMPLATE = `[
  {
    "type": "card",
    "theme": "secondary",
    "modules": [
      {
        "type": "section",
        "text": {"type": "kmarkdown", "content": "{{ data.t|json_escape }}"}
      },
      {"type": "countdown", "mode": "day", "endTime": {{ data.end }}}
    ]
  }
]
`;

describe('a JSON card that validates as written', () => {
  const data = { t: 'two  spaces,\ta tab and a\nline\u2028break', end: 4102444800000 };

  it('is sent as the template wrote it, less its line breaks and indentation: no second encoding', () => {
    const msg = renderMessage({ content: CARD_TEMPLATE, msgtype: 2 }, data, {});
    expect(msg.type).toBe(10);
    expect(msg.content).not.toMatch(/[\r\n]/);
    expect(msg.content).toBe(
      '[{"type": "card","theme": "secondary","modules": [{"type": "section","text": {"type": "kmarkdown", "content": "two  spaces,\\ta tab and a\\nline\\u2028break"}},{"type": "countdown", "mode": "day", "endTime": 4102444800000}]}]',
    );
    // The same value as the parse and write again it replaces.
    const rendered = compileTemplate(CARD_TEMPLATE).render(data, {});
    expect(JSON.parse(msg.content)).toEqual(JSON.parse(rendered));
  });

  it('is written again where the card was fitted, and for YAML', () => {
    const long = `[{"type":"card","modules":[\n{"type":"section","text":{"type":"kmarkdown","content":"${'x'.repeat(5001)}"}}\n]}]`;
    const fitted = fitRendered(long, 'json', 'truncate', Date.now());
    expect(JSON.parse(fitted.content)[0].modules[0].text.content.length).toBeLessThanOrEqual(5000);
    expect(fitted.content).toBe(JSON.stringify(JSON.parse(fitted.content)));
    const yaml = fitRendered('- type: card\n  modules:\n    - type: divider\n', 'yaml', 'fail', Date.now());
    expect(yaml.content).toBe('[{"type":"card","modules":[{"type":"divider"}]}]');
  });
});

/** Deterministic random JSON values: strings with blanks, escapes and line separators. */
function randomJson(seed: number): unknown {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  const pieces = [
    ' ',
    '  ',
    '\t',
    '\n',
    '\r\n',
    '\u2028',
    '\u00a0',
    '"',
    '\\',
    ': ',
    ', ',
    '{',
    '[',
    'a',
    '推',
  ];
  const str = () =>
    Array.from({ length: Math.floor(next() * 8) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 3 || r < 0.3) return str();
    if (r < 0.4) return Math.floor(next() * 1e6) / 100;
    if (r < 0.45) return next() < 0.5;
    if (r < 0.5) return null;
    if (r < 0.75) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    return Object.fromEntries(
      Array.from({ length: Math.floor(next() * 4) }, () => [str(), value(depth + 1)]),
    );
  };
  return value(0);
}

describe('unfoldJson', () => {
  it('leaves every value as it was, whatever the strings hold and however the text is indented', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const value = randomJson(seed);
      for (const text of [
        JSON.stringify(value, null, 2),
        JSON.stringify(value, null, '\t'),
        ` \r\n${JSON.stringify(value, null, 1)}\n `,
      ]) {
        const unfolded = unfoldJson(text);
        expect(unfolded).not.toMatch(/[\r\n]/);
        expect(JSON.parse(unfolded)).toEqual(value);
      }
    }
  });
});
