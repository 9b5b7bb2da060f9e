import { describe, expect, it } from 'vitest';
import { failureMessage, storedParams } from '../../../src/domain/deliveries/failure-text.js';

describe("a delivery failure's message at read time", () => {
  const rejected = {
    reason: 'UPSTREAM_REJECTED',
    code: 40326,
    message: 'The relay target refused the message (HTTP 400, code 1): nope',
    params: { status: 400, upstream_code: 1, detail: 'nope' },
  };

  it("words the reason's entry in the reader's language from the kept parameters", () => {
    expect(failureMessage(rejected, 'zh-CN')).toBe('转发目标拒绝了消息（HTTP 400，错误码 1）：nope');
    expect(failureMessage(rejected, 'en-US')).toBe(rejected.message);
    const noPermission = {
      reason: 'NO_VIEW_PERMISSION',
      code: 40323,
      message: 'The bot lacks the view channels permission in channel c1',
      params: { channel_id: 'c1', permission: { 'zh-CN': '查看频道', 'en-US': 'view channels' } },
    };
    expect(failureMessage(noPermission, 'zh-CN')).toBe('机器人在频道 c1 中缺少权限：查看频道');
    expect(failureMessage(noPermission, 'en-US')).toBe(noPermission.message);
  });

  it('leaves out an error-id clause without an error id, in either language', () => {
    const down = { reason: 'DEPENDENCY_DOWN', code: 50300, message: 'x', params: {} };
    expect(failureMessage(down, 'zh-CN')).toBe('服务暂时不可用，请稍后重试');
    expect(failureMessage(down, 'en-US')).toBe('Service temporarily unavailable, retry later');
  });

  it('answers the recorded message where it cannot word it anew', () => {
    // no parameters kept (an old record), and the entry needs some
    expect(failureMessage({ ...rejected, params: null }, 'zh-CN')).toBe(rejected.message);
    expect(failureMessage({ ...rejected, params: undefined }, 'zh-CN')).toBe(rejected.message);
    // parameters of a shape no message takes
    expect(failureMessage({ ...rejected, params: { detail: { nested: true } } }, 'zh-CN')).toBe(
      rejected.message,
    );
    expect(failureMessage({ ...rejected, params: ['x'] }, 'zh-CN')).toBe(rejected.message);
    // a code that is not the reason's entry, or none, or no reason code at all
    expect(failureMessage({ ...rejected, code: 40000 }, 'zh-CN')).toBe(rejected.message);
    expect(failureMessage({ ...rejected, code: null }, 'zh-CN')).toBe(rejected.message);
    expect(failureMessage({ ...rejected, reason: 'not a reason' }, 'zh-CN')).toBe(rejected.message);
    expect(failureMessage({ reason: null, code: null, message: null }, 'zh-CN')).toBeNull();
  });

  it('words an entry that takes no parameters anew, kept or not', () => {
    const stalled = {
      reason: 'STALLED',
      code: 50002,
      message: 'The processes handling this message stopped too many times',
    };
    expect(failureMessage(stalled, 'zh-CN')).toBe('处理该消息的进程多次中断');
    expect(failureMessage(stalled, 'en-US')).toBe(stalled.message);
  });

  it('takes stored parameters only of the shapes a message takes', () => {
    expect(storedParams({ a: 'x', b: 2, c: { 'zh-CN': '甲', 'en-US': 'a' } })).toEqual({
      a: 'x',
      b: 2,
      c: { 'zh-CN': '甲', 'en-US': 'a' },
    });
    expect(storedParams(null)).toBeNull();
    expect(storedParams('x')).toBeNull();
    expect(storedParams({ a: null })).toBeNull();
    expect(storedParams({ a: { 'zh-CN': '甲' } })).toBeNull();
  });

  it('keeps the error id of a record worded before parameters were kept, in both languages', () => {
    const old = {
      reason: 'INTERNAL',
      code: 50003,
      message: 'Internal error while delivering (error id 3f2a9c)',
      params: undefined,
    };
    expect(failureMessage(old, 'en-US')).toBe(old.message);
    expect(failureMessage(old, 'zh-CN')).toBe('投递时发生内部错误（错误编号 3f2a9c）');
  });
});
