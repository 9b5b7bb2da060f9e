import { describe, expect, it } from 'vitest';
import {
  type CardFormat,
  CardInvalidError,
  CardSyntaxError,
  convertCard,
} from '../../../src/render/cards/index.js';
import { NOW } from './helpers.js';

function syntaxError(text: string, format: CardFormat): CardSyntaxError {
  try {
    convertCard(text, format, NOW);
  } catch (err) {
    expect(err).toBeInstanceOf(CardSyntaxError);
    return err as CardSyntaxError;
  }
  return expect.unreachable('no error thrown');
}

/** [what, text, format, expected detail param]. */
const CASES: readonly [string, string, CardFormat, string][] = [
  [
    'JSON trailing comma',
    '[{"type":"card",\n  "modules":[],}]',
    'json',
    'line 2, column 16: Expected double-quoted property name',
  ],
  ['JSON unexpected token', '[\n  {"type": card}\n]', 'json', "line 2, column 12: Unexpected token 'c'"],
  [
    'JSON unclosed',
    '[{"type":"card","modules":[]}',
    'json',
    "line 1, column 30: Expected ',' or ']' after array element",
  ],
  ['JSON empty', '', 'json', 'line 1, column 1: Unexpected end of JSON input'],
  [
    'YAML bad indentation',
    '- type: card\n  modules: [\n',
    'yaml',
    'line 3, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]',
  ],
  [
    'YAML duplicate key',
    '- type: card\n  type: card\n  modules: []\n',
    'yaml',
    'line 2, column 3: Map keys must be unique',
  ],
  [
    'YAML two documents',
    '- type: card\n  modules: []\n---\n- type: card\n',
    'yaml',
    'line 3, column 1: only one YAML document is allowed',
  ],
  [
    'YAML custom tag',
    '- type: card\n  modules: !include x.yaml\n',
    'yaml',
    'line 2, column 21: tags (!include) are not allowed',
  ],
  [
    'YAML standard tag',
    '- type: !!str card\n  modules: []\n',
    'yaml',
    'line 1, column 15: tags (!!str) are not allowed',
  ],
  [
    'YAML anchor',
    '- type: card\n  modules: &m []\n',
    'yaml',
    'line 2, column 15: anchors (&m) are not allowed',
  ],
  ['YAML alias', '- type: card\n  modules: *m\n', 'yaml', 'line 2, column 12: aliases (*m) are not allowed'],
  [
    'YAML alias bomb',
    'a: &a ["x","x"]\nb: &b [*a,*a]\nc: &c [*b,*b]\nd: [*c,*c]\n',
    'yaml',
    'line 1, column 7: anchors (&a) are not allowed',
  ],
  ['YAML collection key', '- ? [a]\n  : 1\n', 'yaml', 'line 1, column 5: keys must be plain values'],
  ['YAML empty', '   \n', 'yaml', 'the document is empty'],
  [
    'XML unclosed tag',
    '<card>\n  <divider>\n</card>',
    'xml',
    "line 3, column 1: Expected closing tag 'divider' (opened in line 2, col 3) instead of closing tag 'card'.",
  ],
  [
    'XML DOCTYPE',
    '<?xml version="1.0"?>\n<!DOCTYPE card SYSTEM "file:///etc/passwd">\n<card/>',
    'xml',
    'line 2, column 1: <!DOCTYPE is not allowed (no DTDs or entity declarations)',
  ],
  [
    'XML entity declaration',
    '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><card><header>&lol2;</header></card>',
    'xml',
    'line 1, column 1: <!DOCTYPE is not allowed (no DTDs or entity declarations)',
  ],
  [
    'XML stray ENTITY',
    '<card>\n<!ENTITY x "y"></card>',
    'xml',
    'line 2, column 1: <!ENTITY is not allowed (no DTDs or entity declarations)',
  ],
  [
    'XML undeclared entity',
    '<card>\n  <header>&nbsp;</header>\n</card>',
    'xml',
    'line 2, column 3: unknown entity &nbsp; (only &lt; &gt; &amp; &quot; &apos; and &#...; are allowed)',
  ],
  [
    'XML two roots',
    '<card/>\n<card/>',
    'xml',
    'line 2, column 1: the document must have exactly one root element',
  ],
  [
    'XML wrong root',
    '<message/>',
    'xml',
    'line 1, column 1: the root element must be <card> or <cards>, not <message>',
  ],
  ['XML unknown element', '<card>\n  <table/>\n</card>', 'xml', 'line 2, column 3: unknown element <table>'],
  [
    'XML text in a list',
    '<card>hello</card>',
    'xml',
    'line 1, column 1: text directly inside <card> is not allowed; wrap it in <text> or <plain-text>',
  ],
  [
    'XML children in a leaf',
    '<card><divider><header/></divider></card>',
    'xml',
    'line 1, column 7: <divider> takes attributes only',
  ],
  [
    'XML element in text',
    '<card><section><text><kmarkdown>a<b/></kmarkdown></text></section></card>',
    'xml',
    'line 1, column 22: <kmarkdown> holds text only, not <b>',
  ],
  [
    'XML slot twice',
    '<card><section><text>a</text><kmarkdown>b</kmarkdown></section></card>',
    'xml',
    'line 1, column 30: text is given more than once',
  ],
  [
    'XML wrong slot child',
    '<card><header><image src="a.png"/></header></card>',
    'xml',
    'line 1, column 15: <image> is not allowed in <header> (it takes <text>)',
  ],
  [
    'XML type attribute on a type element',
    '<card><section type="x">hi</section></card>',
    'xml',
    'line 1, column 7: <section> already names its type; the type attribute is for <text> and <accessory>',
  ],
  [
    'XML unknown wrapper type',
    '<card><section><text type="table"/></section></card>',
    'xml',
    'line 1, column 16: unknown type "table"',
  ],
  [
    'XML boolean attribute',
    '<card><container><image src="a.png" circle/></container></card>',
    'xml',
    "line 1, column 37: boolean attribute 'circle' is not allowed.",
  ],
];

describe('card parse errors', () => {
  it.each(CASES)('%s', (_name, text, format, detail) => {
    const error = syntaxError(text, format);
    expect(error.params.format).toBe(format);
    expect((error.params.detail as Record<string, string>)['en-US']).toBe(detail);
    expect(error.code).toBe(40013);
    expect(error.name).toBe('CardSyntaxError');
    expect(error.message).toBe(`Card message cannot be parsed (${format}): ${detail}`);
    expect(error.localizedMessage('en-US')).toBe(`Card message cannot be parsed (${format}): ${detail}`);
    // The place in Chinese wherever there is one.
    const place = /^line (\d+), column (\d+): /.exec(detail);
    const zh = error.localizedMessage('zh-CN');
    expect(
      zh.startsWith(`卡片消息无法解析（${format}）：${place ? `第 ${place[1]} 行第 ${place[2]} 列，` : ''}`),
    ).toBe(true);
  });

  it('places an empty or tagless XML card at line 1, column 1 (the parser names no column)', () => {
    for (const text of ['', '   ']) {
      const error = syntaxError(text, 'xml');
      expect(error.message).toBe(
        'Card message cannot be parsed (xml): line 1, column 1: Start tag expected.',
      );
      expect(error.data).toMatchObject({ format: 'xml', line: 1, column: 1 });
    }
  });

  it("words Herald's own problems in Chinese, and leaves a parser library's message as it wrote it", () => {
    const zh = (text: string, format: CardFormat) =>
      String((syntaxError(text, format).params.detail as Record<string, string>)['zh-CN']);
    expect(zh('[\n  {"type": "card",}\n]', 'json')).toBe('第 2 行第 19 列，属性名应使用双引号');
    expect(zh('[\n  {"type": card}\n]', 'json')).toBe("第 2 行第 12 列，意外的字符 'c'");
    expect(zh('', 'json')).toBe('第 1 行第 1 列，JSON 意外结束');
    expect(zh('[1] [2]', 'json')).toBe('第 1 行第 5 列，JSON 之后还有多余的内容');
    expect(zh('- &a x\n- *a\n', 'yaml')).toBe('第 1 行第 6 列，不允许使用锚点（&a）');
    expect(zh('a: 1\n---\nb: 2\n', 'yaml')).toMatch(/只能有一个 YAML 文档$/);
    expect(zh('<card><video2/></card>', 'xml')).toBe('第 1 行第 7 列，未知的元素 <video2>');
    expect(zh('<cards2/>', 'xml')).toMatch(/根元素必须是 <card> 或 <cards>，不能是 <cards2>$/);
    expect(zh('<!DOCTYPE x><card/>', 'xml')).toMatch(/不允许使用 <!DOCTYPE（不支持 DTD 和实体声明）$/);
    // fast-xml-parser's own message: the same in both languages.
    const lib = syntaxError('<card><container><image src="a.png" circle/></container></card>', 'xml');
    const detail = lib.params.detail as Record<string, string>;
    expect(detail['zh-CN']).toBe(`第 1 行第 37 列，${detail['en-US']?.replace(/^line 1, column 37: /, '')}`);
  });

  it('gives line, column and the excerpt of that line as data', () => {
    expect(syntaxError('[\n  1,\n  2,,\n]', 'json').data).toEqual({
      format: 'json',
      line: 3,
      column: 5,
      excerpt: '  2,,',
    });
    expect(syntaxError('- a\n- b: [\n', 'yaml').data).toMatchObject({ format: 'yaml', line: 3 });
    expect(syntaxError('<card>\r\n  <modules></card>', 'xml').data).toMatchObject({
      format: 'xml',
      line: 2,
      excerpt: '  <modules></card>',
    });
    // A long line: 160 characters around the column.
    const long = `[${'1,'.repeat(100)}x,${'1,'.repeat(100)}1]`;
    const data = syntaxError(long, 'json').data as { column: number; excerpt: string };
    expect(data.excerpt).toHaveLength(160);
    expect(long.slice(data.column - 80, data.column + 80)).toBe(data.excerpt);
  });

  it('refuses elements nested past the bound at the start tag that goes too deep', () => {
    // 101 levels: fast-xml-parser's own plain Error once (a 500 in preview, five retries in a worker).
    const deep = `<card>\n${'<container>'.repeat(100)}${'</container>'.repeat(100)}</card>`;
    const error = syntaxError(deep, 'xml');
    expect(error.params.detail).toEqual({
      'en-US': 'line 2, column 1090: elements are nested more than 100 levels deep',
      'zh-CN': '第 2 行第 1090 列，元素嵌套超过 100 层',
    });
  });

  it('takes elements nested to the bound, and quoted > and comments do not confuse the depth', () => {
    const tags = (n: number) => `${'<container a="x>y">'.repeat(n)}<!-- <a> -->${'</container>'.repeat(n)}`;
    // Through the parser to the card's own rules, which refuse the made-up attribute.
    expect(() => convertCard(`<card>${tags(99)}</card>`, 'xml', NOW)).toThrow(CardInvalidError);
    expect(() => convertCard(`<card>${tags(99)}</card>`, 'xml', NOW)).toThrow(
      /modules\[0\]\.a: is not a field/,
    );
  });

  it('never expands an entity, even one declared harmlessly', () => {
    // The DOCTYPE is refused before fast-xml-parser sees it, so no expansion can happen.
    expect(() => convertCard('<!DOCTYPE card [<!ENTITY a "b">]><card/>', 'xml', NOW)).toThrow(/DOCTYPE/);
  });

  it('refuses a YAML merge key as an ordinary unknown field (merge is off)', () => {
    expect(() => convertCard('- type: card\n  modules: []\n  <<: {size: sm}\n', 'yaml', NOW)).toThrow(
      'card[0]["<<"]: is not a field of a card',
    );
  });
});
