import { describe, expect, it } from 'vitest';
import { pickLang } from '../../src/api/lang.js';

describe('pickLang', () => {
  it.each([
    [undefined, 'zh-CN'],
    ['', 'zh-CN'],
    ['en-US', 'en-US'],
    ['en', 'en-US'],
    ['EN-gb', 'en-US'],
    ['zh-CN,zh;q=0.9,en;q=0.8', 'zh-CN'],
    ['fr-FR,en;q=0.5', 'en-US'],
    ['zh;q=0.4, en;q=0.6', 'en-US'],
    ['en;q=0', 'zh-CN'],
    ['de', 'zh-CN'],
  ])('%s -> %s', (header, lang) => {
    expect(pickLang(header)).toBe(lang);
  });
});
