import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lang } from '../../console/src/i18n.ts';
import { drawKmarkdown, drawKmarkdownInline, safeUrl } from '../../console/src/views/kmarkdown.tsx';
import { compileTemplate } from '../../src/render/twig/index.ts';
import { attributeNames, countClass, html, tags, textOf } from './html.ts';

/** The drawn paragraph's inner HTML for a one-paragraph source. */
const p = (source: string): string => {
  const out = html(drawKmarkdown(source));
  const m = /^<div class="kmd"><p class="kmd-p">(.*)<\/p><\/div>$/s.exec(out);
  if (!m) throw new Error(`not one paragraph: ${out}`);
  return m[1]!;
};
const draw = (source: string): string => html(drawKmarkdown(source));

beforeEach(() => {
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = 'en-US';
});

describe('KMarkdown: inline formatting', () => {
  it('draws bold, italic, both, strikethrough, underline and spoiler', () => {
    expect(p('**b**')).toBe('<strong>b</strong>');
    expect(p('*i*')).toBe('<em>i</em>');
    expect(p('***bi***')).toBe('<strong><em>bi</em></strong>');
    expect(p('~~s~~')).toBe('<del>s</del>');
    expect(p('(ins)u(ins)')).toBe('<u>u</u>');
    expect(p('(spl)secret(spl)')).toBe(
      '<span class="kmd-spoiler" title="Spoiler: hover to reveal">secret</span>',
    );
  });

  it('nests formatting and keeps the text around it', () => {
    expect(p('a **b ~~c~~ d** e')).toBe('a <strong>b <del>c</del> d</strong> e');
    expect(p('*x **y** z*')).toBe('<em>x <strong>y</strong> z</em>');
    expect(p('(spl)**hidden** text(spl)')).toBe(
      '<span class="kmd-spoiler" title="Spoiler: hover to reveal"><strong>hidden</strong> text</span>',
    );
  });

  it('leaves stars that open nothing as text', () => {
    expect(p('2 * 3 * 4')).toBe('2 * 3 * 4');
    expect(p('****')).toBe('****');
    expect(p('**unclosed and *half')).toBe('**unclosed and *half');
    expect(p('~single~')).toBe('~single~');
    expect(p('(ins)never closed')).toBe('(ins)never closed');
  });

  it('draws inline code literally, with no formatting or escapes inside', () => {
    expect(p('`a **b** \\*`')).toBe('<code class="kmd-code">a **b** \\*</code>');
    expect(p('``x`y`` after')).toBe('<code class="kmd-code">x`y</code> after');
    expect(p('**bold `code**` still**')).toBe(
      '<strong>bold <code class="kmd-code">code**</code> still</strong>',
    );
    expect(p('`unclosed')).toBe('`unclosed');
  });

  it('keeps line breaks, blank lines and spaces', () => {
    expect(p('a\nb\n\nc')).toBe('a<br/>b<br/><br/>c');
    expect(p('a\r\nb')).toBe('a<br/>b');
    expect(p('  two  spaces')).toBe('  two  spaces');
  });
});

describe('KMarkdown: links', () => {
  it('links http and https addresses in a new tab without opener or referrer', () => {
    expect(p('[Herald](https://example.com/a?b=1&c=2)')).toBe(
      '<a class="kmd-link" href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">Herald</a>',
    );
    expect(p('[**bold** link](http://example.com)')).toBe(
      '<a class="kmd-link" href="http://example.com/" target="_blank" rel="noopener noreferrer"><strong>bold</strong> link</a>',
    );
    expect(p('[wiki](https://en.wikipedia.org/wiki/Foo_(bar))')).toContain(
      'href="https://en.wikipedia.org/wiki/Foo_(bar)"',
    );
  });

  it('shows any other address as text, never as an href', () => {
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)',
      ' javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:x',
      '//evil.example/x',
      '/relative',
      'https://',
    ]) {
      const out = p(`[click](${url})`);
      expect(out, url).not.toContain('href');
      expect(out, url).not.toContain('<a');
      expect(tags(out), url).toEqual(['span.kmd-link-inert']);
      expect(textOf(out), url).toBe(`click (${url})`);
    }
  });

  it('takes the first ] as the end of a link text', () => {
    expect(p('[a] b [c](https://x.example)')).toBe(
      '[a] b <a class="kmd-link" href="https://x.example/" target="_blank" rel="noopener noreferrer">c</a>',
    );
    expect(p('[no address] here')).toBe('[no address] here');
  });
});

describe('KMarkdown: blocks', () => {
  it('draws a --- line as a divider', () => {
    expect(draw('above\n---\nbelow')).toBe(
      '<div class="kmd"><p class="kmd-p">above</p><hr class="kmd-hr"/><p class="kmd-p">below</p></div>',
    );
    expect(draw(' --- ')).toBe('<div class="kmd"><hr class="kmd-hr"/></div>');
    expect(p('a --- b')).toBe('a --- b');
  });

  it('draws > lines as a quote that runs until a blank line', () => {
    expect(draw('> first\nsecond **b**\n\nafter')).toBe(
      '<div class="kmd"><blockquote class="kmd-quote"><p class="kmd-p">first<br/>second <strong>b</strong></p></blockquote><p class="kmd-p">after</p></div>',
    );
    expect(draw('>no space')).toBe(
      '<div class="kmd"><blockquote class="kmd-quote"><p class="kmd-p">no space</p></blockquote></div>',
    );
  });

  it('draws fenced code with its language, contents verbatim', () => {
    expect(draw('```js\nif (a < b && **c**) {}\n  indented\n```\nafter')).toBe(
      '<div class="kmd"><pre class="kmd-pre" data-lang="js"><code>if (a &lt; b &amp;&amp; **c**) {}\n  indented</code></pre><p class="kmd-p">after</p></div>',
    );
    expect(draw('```one line```')).toBe(
      '<div class="kmd"><pre class="kmd-pre"><code>one line</code></pre></div>',
    );
    expect(draw('```\nno end')).toBe('<div class="kmd"><p class="kmd-p">```<br/>no end</p></div>');
  });
});

describe('KMarkdown: mentions, channels, roles and emoji', () => {
  it('draws them as chips', () => {
    expect(p('hi (met)1234(met)')).toBe('hi <span class="kmd-mention kmd-mention-user">@1234</span>');
    expect(p('(met)all(met)')).toBe('<span class="kmd-mention kmd-mention-all">@all</span>');
    expect(p('(met)here(met)')).toBe('<span class="kmd-mention kmd-mention-here">@here</span>');
    expect(p('(rol)42(rol)')).toBe('<span class="kmd-mention kmd-mention-role">@role 42</span>');
    expect(p('(chn)9001(chn)')).toBe('<span class="kmd-channel">#9001</span>');
    expect(p('(emj)party(emj)[1/abc] ok')).toBe('<span class="kmd-emoji" title="1/abc">:party:</span> ok');
    expect(p('(emj)party(emj)')).toBe('<span class="kmd-emoji">:party:</span>');
  });

  it('names group mentions and roles in the chosen language', () => {
    lang.value = 'zh-CN';
    expect(textOf(p('(met)all(met) (met)here(met) (rol)7(rol)'))).toBe('@全体成员 @在线成员 @角色 7');
  });

  it('leaves empty, multi-line or unclosed tags as text', () => {
    expect(p('(met)(met)')).toBe('(met)(met)');
    expect(p('(met)a\nb(met)')).toBe('(met)a<br/>b(met)');
    expect(p('(chn)1')).toBe('(chn)1');
    expect(p(`(met)${'9'.repeat(500)}(met)`)).not.toContain('kmd-mention');
  });
});

describe('KMarkdown: escapes', () => {
  it('draws a backslash-escaped character as itself', () => {
    expect(p('\\*not italic\\*')).toBe('*not italic*');
    expect(p('\\*\\*not bold\\*\\*')).toBe('**not bold**');
    expect(p('\\(met)1(met)')).toBe('(met)1(met)');
    expect(p('\\[a](https://x.example)')).toBe('[a](https://x.example)');
    expect(p('\\`code\\`')).toBe('`code`');
    expect(p('a \\\\ b')).toBe('a \\ b');
    expect(draw('\\---')).toBe('<div class="kmd"><p class="kmd-p">---</p></div>');
    expect(draw('\\> not a quote')).toBe('<div class="kmd"><p class="kmd-p">> not a quote</p></div>');
  });

  it('keeps a backslash before a letter or at the end', () => {
    expect(p('C:\\path\\name \\')).toBe('C:\\path\\name \\');
  });

  /** Backslash before every ASCII punctuation character: the platform's way to write literal text. */
  const escapeAll = (s: string): string => s.replace(/[!-/:-@[-`{-~]/g, '\\$&');
  const samples = [
    'plain words',
    '**not bold** *not italic* ~~not struck~~',
    '(met)all(met) (rol)1(rol) (chn)2(chn) (emj)x(emj)[1] (ins)u(ins) (spl)s(spl)',
    '[text](https://example.com) `code` ```block```',
    '---',
    '> not a quote\nsecond line',
    'C:\\dir\\file \\* \\\\',
    '<b>tags</b> & "quotes" \'single\'',
    'emoji 😀 CJK 中文',
  ];

  it('draws backslash-escaped text as the original text', () => {
    for (const s of samples) {
      const out = draw(escapeAll(s));
      expect(textOf(out), s).toBe(s);
      expect(tags(out), s).toEqual(['div.kmd', 'p.kmd-p', ...(s.includes('\n') ? ['br'] : [])]);
    }
  });

  it("round-trips Herald's kmd_escape: its output draws exactly as the text it was given", () => {
    // kmd_escape is reserved and returns its input (service spec 2.4), so the drawn result of
    // escaped text is the drawn result of the text: plain text stays plain, markup stays markup.
    const kmdEscape = (s: string): string =>
      compileTemplate('{{ data.s|kmd_escape }}').render({ s }, {}, {}) as string;
    for (const s of [...samples, 'line1\nline2\n\nline4', 'tab\there', '**bold** `x`']) {
      expect(kmdEscape(s), s).toBe(s);
      expect(draw(kmdEscape(s)), s).toBe(draw(s));
    }
    for (const s of ['plain words', 'line1\nline2\n\nline4', 'tab\there', 'emoji 😀 CJK 中文']) {
      expect(textOf(draw(kmdEscape(s))), s).toBe(s);
    }
    expect(p(kmdEscape('**bold** `x`'))).toBe('<strong>bold</strong> <code class="kmd-code">x</code>');
  });
});

describe('KMarkdown: hostile input', () => {
  it('draws HTML in the text as text', () => {
    const out = draw('<script>alert(1)</script> <img src=x onerror=alert(1)> **<i>x</i>**');
    expect(out).not.toMatch(/<script|<img|<i>/);
    expect(attributeNames(out)).toEqual(['class', 'class']);
    expect(textOf(out)).toBe('<script>alert(1)</script> <img src=x onerror=alert(1)> <i>x</i>');
  });

  it('keeps an address that tries to break out of its attribute inside it', () => {
    const out = p('[x](https://e.example/" onmouseover="alert(1))');
    expect(attributeNames(out)).toEqual(['class', 'href', 'target', 'rel']);
    expect(out).toContain('href="https://e.example/%22%20onmouseover=%22alert(1)"');
  });

  it('draws huge and deeply nested input without failing', () => {
    const n = 20_000;
    const cases = [
      '['.repeat(n),
      '*a'.repeat(n),
      '**'.repeat(n) + 'x',
      '`'.repeat(n),
      '(spl)'.repeat(n),
      '(met)'.repeat(n),
      '[a](https://x.example/'.repeat(n),
      '\\'.repeat(n),
    ];
    for (const s of cases) {
      const out = draw(s);
      expect(out.startsWith('<div class="kmd">'), s.slice(0, 10)).toBe(true);
      expect(textOf(out).length, s.slice(0, 10)).toBeGreaterThan(0);
    }
    // 2,000 levels of nesting: drawn to a bounded depth, the rest as text.
    const deep = `${'(ins)a'.repeat(1000)}${'(spl)b'.repeat(1000)}`;
    const out = draw(deep);
    expect(countClass(out, 'kmd-spoiler') + (out.match(/<u>/g)?.length ?? 0)).toBeGreaterThan(0);
    const lines = draw(Array.from({ length: 5000 }, (_, i) => `> **line ${i}**`).join('\n'));
    expect(lines.match(/<strong>/g)).toHaveLength(5000);
  });
});

describe('inline drawing and addresses', () => {
  it('draws block syntax as text when drawn inline', () => {
    expect(html(drawKmarkdownInline('**a**\n---\n> q'))).toBe(
      '<span class="kmd kmd-inline"><strong>a</strong><br/>---<br/>> q</span>',
    );
  });

  it('accepts only absolute http(s) addresses', () => {
    expect(safeUrl('https://a.example/x.png')).toBe('https://a.example/x.png');
    expect(safeUrl(' HTTP://A.example ')).toBe('http://a.example/');
    for (const bad of [
      'javascript:alert(1)',
      'data:image/png;base64,AA',
      'ftp://x',
      '//x',
      'x.png',
      '',
      1,
      null,
    ]) {
      expect(safeUrl(bad), String(bad)).toBeNull();
    }
  });
});
