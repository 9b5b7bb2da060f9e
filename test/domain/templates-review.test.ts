import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approveTemplate,
  banTemplate,
  createTemplate,
  deleteTemplate,
  getTemplateForSend,
  NORMAL_MESSAGE_CONSUMPTION,
  REVIEW_TRANSITIONS,
  rejectTemplate,
  submitTemplate,
  TEMPLATE_STATUS,
  TemplateNotFoundError,
  TemplateTransitionError,
  TemplateUnavailableError,
  unbanTemplate,
  updateTemplate,
} from '../../src/domain/templates/index.js';
import type { BotRecord } from '../../src/store/index.js';
import { createTestBot, startTestApp, type TestApp } from '../helpers/test-app.js';

let app: TestApp;
let bot: BotRecord;
let otherBot: BotRecord;
let token: string;

beforeAll(async () => {
  app = await startTestApp('templates-review');
  const b = await createTestBot(app);
  token = b.token;
  bot = (await app.res.store.bots.get(b.id))!;
  otherBot = (await app.res.store.bots.get((await createTestBot(app)).id))!;
});
afterAll(() => app?.close());

const { NOT_REVIEWED, IN_REVIEW, APPROVED, REJECTED } = TEMPLATE_STATUS;

const newTemplate = async (content = 'hello {{ data.x }}') =>
  (await createTemplate(app.res, bot, { title: 'review', content })).model;

/** Drives a fresh template into `status` through the transitions. */
async function templateIn(status: number) {
  const t = await newTemplate();
  if (status === NOT_REVIEWED) return t;
  await submitTemplate(app.res, bot, t.id);
  if (status === APPROVED) await approveTemplate(app.res, bot, t.id);
  if (status === REJECTED) await rejectTemplate(app.res, bot, t.id);
  return (await app.res.store.templates.get(bot, t.id))!;
}

describe('review transitions (spec 3.2) through the store', () => {
  it('has the documented table', () => {
    expect(
      Object.fromEntries(Object.entries(REVIEW_TRANSITIONS).map(([k, m]) => [k, Object.fromEntries(m)])),
    ).toEqual({
      submit: { 0: 1, 3: 1 },
      approve: { 1: 2 },
      reject: { 1: 3 },
    });
  });

  it('submit -> approve: 0 -> 1 -> 2, each step bumping the version', async () => {
    const t = await newTemplate();
    expect(t.status).toBe(NOT_REVIEWED);
    const s = await submitTemplate(app.res, bot, t.id);
    expect(s).toMatchObject({ status: IN_REVIEW, version: 2 });
    const a = await approveTemplate(app.res, bot, t.id, { consumption: 0.5 });
    expect(a).toMatchObject({ status: APPROVED, version: 3, consumption: 0.5 });
    expect((await app.res.store.templates.get(bot, t.id))!.status).toBe(APPROVED);
  });

  it('reject, then resubmit: 1 -> 3 -> 1', async () => {
    const t = await templateIn(REJECTED);
    expect(t.status).toBe(REJECTED);
    expect((await submitTemplate(app.res, bot, t.id)).status).toBe(IN_REVIEW);
  });

  it.each([
    ['approve', NOT_REVIEWED],
    ['reject', NOT_REVIEWED],
    ['approve', APPROVED],
    ['reject', REJECTED],
    ['submit', IN_REVIEW],
    ['submit', APPROVED],
  ] as const)('refuses %s from status %i with TemplateTransitionError (40022)', async (action, status) => {
    const t = await templateIn(status);
    const fn = { submit: submitTemplate, approve: approveTemplate, reject: rejectTemplate }[action];
    const err = await fn(app.res, bot, t.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateTransitionError);
    expect((err as TemplateTransitionError).code).toBe(40022);
    expect((await app.res.store.templates.get(bot, t.id))!.status).toBe(status);
  });

  it('an approved consumption may not exceed a normal message', async () => {
    const t = await templateIn(IN_REVIEW);
    await expect(
      approveTemplate(app.res, bot, t.id, { consumption: NORMAL_MESSAGE_CONSUMPTION + 1 }),
    ).rejects.toThrow(/consumption/);
    await expect(approveTemplate(app.res, bot, t.id, { consumption: 0 })).rejects.toThrow(/consumption/);
  });

  it("another bot's template is not found for every transition", async () => {
    const t = await newTemplate();
    for (const fn of [submitTemplate, banTemplate, unbanTemplate]) {
      await expect(fn(app.res, otherBot, t.id)).rejects.toBeInstanceOf(TemplateNotFoundError);
    }
  });
});

describe('review rules over HTTP', () => {
  const update = (json: unknown) =>
    app.request<{ model: { status: number; version: number; consumption: number } }>(
      'POST',
      '/api/v3/template/update',
      { bot: token, json },
    );

  it('a template in review cannot be modified (403, 40301), nor by the domain function', async () => {
    const t = await templateIn(IN_REVIEW);
    for (const change of [{ title: 'x' }, { content: 'y' }, { test_data: '{}' }, {}]) {
      const r = await update({ id: t.id, ...change });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe(40301);
      expect(r.body.message).toBe('模板正在审核中，不能修改');
    }
    await expect(updateTemplate(app.res, bot, t.id, { title: 'z' })).rejects.toMatchObject({ code: 40301 });
    expect((await app.res.store.templates.get(bot, t.id))!).toMatchObject({
      title: 'review',
      version: t.version,
    });
  });

  it('a template in review can still be used to send', async () => {
    const t = await templateIn(IN_REVIEW);
    expect((await getTemplateForSend(app.res, bot, t.id)).id).toBe(t.id);
  });

  it('changing the content of an approved template puts it back to 0 at the normal consumption', async () => {
    const t = await newTemplate();
    await submitTemplate(app.res, bot, t.id);
    await approveTemplate(app.res, bot, t.id, { consumption: 0.25 });
    const r = await update({ id: t.id, content: 'new content' });
    expect(r.status).toBe(200);
    expect(r.body.data.model).toMatchObject({
      status: NOT_REVIEWED,
      consumption: NORMAL_MESSAGE_CONSUMPTION,
    });
  });

  it('an unchanged content or a title change keeps an approved template approved', async () => {
    const t = await templateIn(APPROVED);
    const same = await update({ id: t.id, content: t.content, title: 'renamed' });
    expect(same.body.data.model.status).toBe(APPROVED);
  });

  it('changing the msgtype of an approved template also voids the approval', async () => {
    const t = await templateIn(APPROVED);
    expect((await update({ id: t.id, msgtype: 2 })).body.data.model.status).toBe(NOT_REVIEWED);
  });

  it('changing the content of a rejected template makes it "not reviewed" again', async () => {
    const t = await templateIn(REJECTED);
    expect((await update({ id: t.id, content: 'fixed' })).body.data.model.status).toBe(NOT_REVIEWED);
  });
});

describe('getTemplateForSend (for the pipe workers)', () => {
  it('returns the template with its version', async () => {
    const t = await newTemplate();
    expect(await getTemplateForSend(app.res, bot, t.id)).toMatchObject({
      id: t.id,
      version: 1,
      content: t.content,
    });
  });

  it('a banned template cannot send (40021, reason banned), whatever its status; unban restores it', async () => {
    const t = await templateIn(APPROVED);
    const banned = await banTemplate(app.res, bot, t.id);
    expect(banned).toMatchObject({ banned: true, status: APPROVED });
    const err = await getTemplateForSend(app.res, bot, t.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateUnavailableError);
    expect(err).toMatchObject({ reason: 'banned', code: 40021, data: { id: t.id, reason: 'banned' } });
    await unbanTemplate(app.res, bot, t.id);
    expect((await getTemplateForSend(app.res, bot, t.id)).banned).toBe(false);
  });

  it('a deleted template reports "deleted" (40020), in any status, and is gone for everything else', async () => {
    const t = await templateIn(IN_REVIEW);
    await deleteTemplate(app.res, bot, t.id);
    const err = await getTemplateForSend(app.res, bot, t.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateUnavailableError);
    expect(err).toMatchObject({ reason: 'deleted', code: 40020 });
    expect((err as TemplateUnavailableError).localizedMessage('en-US')).toBe(
      `Template ${t.id} has been deleted; messages that use it cannot be sent`,
    );
    expect(await app.res.store.templates.get(bot, t.id)).toBeNull();
    await expect(submitTemplate(app.res, bot, t.id)).rejects.toBeInstanceOf(TemplateNotFoundError);
    // The tombstone keeps no template text.
    expect((await app.res.store.templates.getWithTombstone(bot, t.id))!.content).toBe('');
  });

  it("an unknown id, or another bot's, is not found", async () => {
    const t = await newTemplate();
    await expect(getTemplateForSend(app.res, otherBot, t.id)).rejects.toBeInstanceOf(TemplateNotFoundError);
    await expect(getTemplateForSend(app.res, bot, 'nope')).rejects.toBeInstanceOf(TemplateNotFoundError);
  });
});
