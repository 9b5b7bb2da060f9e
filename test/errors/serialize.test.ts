import { describe, expect, it } from 'vitest';
import { HeraldError } from '../../src/errors/herald-error.js';
import { revive, serialize } from '../../src/errors/serialize.js';
import { CardInvalidError } from '../../src/render/cards/index.js';

describe('an error across the render thread boundary', () => {
  it('a card error keeps its rule in both languages, and its English data.rule', () => {
    const error = new CardInvalidError(
      [0, 'modules', 0, 'elements'],
      { 'zh-CN': 'action-group 最多包含 4 个 button', 'en-US': 'an action-group holds at most 4 buttons' },
      { line: 3, column: 7 },
      '    elements:',
    );
    // structuredClone does what postMessage does to it between the threads.
    const revived = revive(structuredClone(serialize(error)));
    expect(revived).toBeInstanceOf(HeraldError);
    const herald = revived as HeraldError;
    expect(herald.code).toBe(40014);
    expect(herald.localizedMessage('zh-CN')).toBe(
      '卡片消息不合法：第 3 行第 7 列，card[0].modules[0].elements：action-group 最多包含 4 个 button',
    );
    expect(herald.localizedMessage('en-US')).toBe(
      'Card message is invalid: line 3, column 7: card[0].modules[0].elements: an action-group holds at most 4 buttons',
    );
    expect(herald.localizedMessage('zh-CN')).toBe(error.localizedMessage('zh-CN'));
    expect(herald.message).toBe(error.message);
    expect(herald.data).toEqual({
      path: 'card[0].modules[0].elements',
      rule: 'an action-group holds at most 4 buttons',
      line: 3,
      column: 7,
      excerpt: '    elements:',
    });
  });

  it('any other error keeps its message only', () => {
    const revived = revive(structuredClone(serialize(new TypeError('boom'))));
    expect(revived).not.toBeInstanceOf(HeraldError);
    expect(revived.message).toBe('boom');
  });
});
