import { describe, expect, it } from 'vitest';
import {
  currentStep,
  defaultChoices,
  EMPTY_STATE,
  type FirstPipeState,
  newUserId,
  opBlocker,
  planStep,
  STEPS,
  stepReady,
} from '../../console/src/first-pipe-plan.ts';

const names = { bot: 'Herald Bot', guild: 'Herald HQ', channel: 'announcements', pipe: 'First pipe' };
const choices = defaultChoices(names, '1700000000000123');
const bot = { id: '11', name: 'Herald Bot', user_id: '22' };

describe('the guided first pipe plan', () => {
  it('prefills names and a numeric owner id, with the starter template', () => {
    expect(choices).toEqual({
      botName: 'Herald Bot',
      ownerId: '1700000000000123',
      guildName: 'Herald HQ',
      channelName: 'announcements',
      pipeTitle: 'First pipe',
      format: 'template',
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
      template: { id: 'tpl', title: 't', test_data: '{}' },
    };
    expect(planStep('pipe', s, choices)).toEqual(['create-pipe']);
    expect(currentStep(s, choices)).toBe('pipe');
    expect(stepReady('pipe', s, choices)).toBe(true);
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
});
