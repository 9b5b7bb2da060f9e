import { describe, expect, it } from 'vitest';
import { MessageTooLongError } from '../../src/render/errors/message-too-long-error.js';
import { compileTemplate, renderMessage } from '../../src/render/index.js';

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
