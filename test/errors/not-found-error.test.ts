import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors/not-found-error.js';

describe('NotFoundError', () => {
  it.each([
    ['bot', '机器人不存在'],
    ['channel', '频道不存在'],
    ['guild', '服务器不存在'],
    ['guild member', '服务器成员不存在'],
    ['message', '消息不存在'],
    ['pipe', '管道不存在'],
    ['user', '用户不存在'],
  ] as const)('names a %s in Chinese for a zh-CN reader, in English for an en-US one', (resource, zh) => {
    const err = new NotFoundError(resource);
    expect(err.localizedMessage('zh-CN')).toBe(zh);
    expect(err.localizedMessage('en-US')).toBe(`${resource} not found`);
    expect(err.message).toBe(`${resource} not found`);
    expect([err.status, err.code]).toEqual([404, 40401]);
  });
});
