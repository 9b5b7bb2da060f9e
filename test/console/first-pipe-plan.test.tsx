import { describe, expect, it } from 'vitest';
import {
  currentStep,
  defaultChoices,
  EMPTY_STATE,
  type FirstPipeState,
  newUserId,
  opBlocker,
  planStep,
  STARTER_TEMPLATES,
  STEPS,
  stepReady,
} from '../../console/src/first-pipe-plan.ts';
import { renderMessage } from '../../src/render/index.js';

const names = { bot: 'Herald Bot', guild: 'Herald HQ', channel: 'announcements', pipe: 'First pipe' };
const choices = defaultChoices(names, '1700000000000123');
const bot = { id: '11', name: 'Herald Bot', user_id: '22' };

describe('the guided first pipe plan', () => {
  it('prefills names and a numeric owner id, with the KMarkdown starter template', () => {
    expect(choices).toEqual({
      botName: 'Herald Bot',
      ownerId: '1700000000000123',
      guildName: 'Herald HQ',
      channelName: 'announcements',
      pipeTitle: 'First pipe',
      format: 'kmarkdown',
    });
    expect(newUserId(1_700_000_000_000, 0.042)).toBe('1700000000000042');
    expect(newUserId(1_700_000_000_000, 0.9999)).toBe('1700000000000999');
  });

  it('plans every call from an empty install, in order', () => {
    expect(STEPS.map((s) => planStep(s, EMPTY_STATE, choices))).toEqual([
      ['create-bot'],
      ['ensure-owner', 'create-guild', 'create-channel'],
      ['add-member'],
      ['create-template', 'create-pipe'],
    ]);
    expect(currentStep(EMPTY_STATE, choices)).toBe('bot');
    expect(STEPS.map((s) => stepReady(s, EMPTY_STATE, choices))).toEqual([true, false, false, false]);
  });

  it('runs again only the calls that did not succeed', () => {
    // The guild was made, then the channel failed: a rerun makes only the channel.
    const s: FirstPipeState = {
      ...EMPTY_STATE,
      bot,
      botToken: 'hrb_x',
      owner: { id: '1700000000000123', created: true },
      guild: { id: '33', name: 'Herald HQ' },
    };
    expect(planStep('place', s, choices)).toEqual(['create-channel']);
    expect(planStep('bot', s, choices)).toEqual([]);
    expect(currentStep(s, choices)).toBe('place');
    expect(stepReady('member', s, choices)).toBe(false);
  });

  it('does not look the owner up again once the guild exists', () => {
    const s: FirstPipeState = { ...EMPTY_STATE, bot, guild: { id: '33', name: 'g' } };
    expect(planStep('place', s, choices)).toEqual(['create-channel']);
  });

  it('reuses a template made by a run whose pipe creation failed', () => {
    const s: FirstPipeState = {
      ...EMPTY_STATE,
      bot,
      botToken: 'hrb_x',
      owner: { id: '1', created: false },
      guild: { id: '33', name: 'g' },
      channel: { id: '44', name: 'c' },
      member: true,
      template: { id: 'tpl', title: 't', test_data: '{}', format: 'kmarkdown' },
    };
    expect(planStep('pipe', s, choices)).toEqual(['create-pipe']);
    expect(currentStep(s, choices)).toBe('pipe');
    expect(stepReady('pipe', s, choices)).toBe(true);
    // The operator then chose the card starter: the KMarkdown template is not it, a card one is made.
    expect(planStep('pipe', s, { ...choices, format: 'card' })).toEqual(['create-template', 'create-pipe']);
    expect(
      planStep(
        'pipe',
        { ...s, template: { ...s.template!, format: 'card' } },
        { ...choices, format: 'card' },
      ),
    ).toEqual(['create-pipe']);
  });

  it('makes no template for a plain pipe, and nothing once the pipe exists', () => {
    const s: FirstPipeState = {
      ...EMPTY_STATE,
      bot,
      owner: { id: '1', created: false },
      guild: { id: '33', name: 'g' },
      channel: { id: '44', name: 'c' },
      member: true,
    };
    expect(planStep('pipe', s, { ...choices, format: 'plain' })).toEqual(['create-pipe']);
    const done = { ...s, pipe: { id: '55', title: 'First pipe', template_id: null }, url: 'http://x' };
    expect(planStep('pipe', done, choices)).toEqual([]);
    expect(currentStep(done, choices)).toBe('done');
  });

  it('names a missing prerequisite instead of calling with an empty id', () => {
    expect(opBlocker('create-bot', EMPTY_STATE)).toBeNull();
    expect(opBlocker('create-channel', EMPTY_STATE)).toBe('no-bot');
    expect(opBlocker('add-member', { ...EMPTY_STATE, bot })).toBe('no-guild');
    expect(opBlocker('create-template', { ...EMPTY_STATE, bot })).toBe('no-token');
    expect(opBlocker('create-template', { ...EMPTY_STATE, bot, botToken: 'hrb_x' })).toBeNull();
    expect(opBlocker('create-pipe', { ...EMPTY_STATE, bot })).toBe('no-channel');
  });

  it("renders both starter templates with their test data in Herald's engine", () => {
    const now = Date.UTC(2024, 4, 1, 12, 30);
    const km = STARTER_TEMPLATES.kmarkdown;
    expect(renderMessage(km, JSON.parse(km.test_data), {}, { now })).toEqual({
      type: 9,
      content: '**Hello from Herald**\nYour first pipe works.',
      warnings: [],
      warningCount: 0,
    });
    const card = STARTER_TEMPLATES.card;
    const msg = renderMessage(card, JSON.parse(card.test_data), {}, { now });
    expect(msg.type).toBe(10);
    expect(msg.warnings).toEqual([]);
    expect(JSON.parse(msg.content)).toEqual([
      {
        type: 'card',
        theme: 'primary',
        size: 'lg',
        modules: [
          { type: 'header', text: { type: 'plain-text', content: 'Hello from Herald' } },
          {
            type: 'section',
            text: {
              type: 'kmarkdown',
              content: 'Your first pipe works: this card was drawn from **your data**.',
            },
          },
          { type: 'divider' },
          { type: 'context', elements: [{ type: 'plain-text', content: '2024-05-01 12:30 UTC' }] },
        ],
      },
    ]);
  });

  it('keeps the card valid whatever text the data holds, and without data', () => {
    const card = STARTER_TEMPLATES.card;
    const nasty = 'a "quote", a back\\slash, </script> and\na line break\t';
    const cards = JSON.parse(renderMessage(card, { title: nasty, text: nasty }, {}).content);
    expect(cards[0].modules[0].text.content).toBe(nasty);
    expect(cards[0].modules[1].text.content).toBe(nasty);
    // A title longer than a header holds is cut to its 100 characters instead of failing the message.
    const long = renderMessage(card, { title: '题'.repeat(150) }, {});
    expect(JSON.parse(long.content)[0].modules[0].text.content).toBe('题'.repeat(100));
    const empty = JSON.parse(renderMessage(card, {}, {}).content);
    expect(empty[0].modules[0].text.content).toBe('Herald');
    expect(empty[0].modules[1].text.content).toBe('(no text)');
  });
});
