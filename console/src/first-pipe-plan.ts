/*
 * The guided first pipe's plan: which calls each step still has to make, given what earlier runs
 * already made. Running a step again after a failure makes only the calls that did not succeed,
 * so nothing is created twice. Pure: the screen runs the calls, the unit tests check the plan.
 */

export type StepId = 'bot' | 'place' | 'member' | 'pipe';
export const STEPS: readonly StepId[] = ['bot', 'place', 'member', 'pipe'];

/** One call of a step, in the order they run. */
export type Op =
  | 'create-bot'
  | 'ensure-owner'
  | 'create-guild'
  | 'create-channel'
  | 'add-member'
  | 'create-template'
  | 'create-pipe';

/** What the flow has made so far (ids and names; the bot token only in memory, never stored). */
export interface FirstPipeState {
  readonly bot: { readonly id: string; readonly name: string; readonly user_id: string } | null;
  /** From bot/create: the template step calls the bot API with it. Memory only. */
  readonly botToken: string | null;
  readonly owner: { readonly id: string; readonly created: boolean } | null;
  readonly guild: { readonly id: string; readonly name: string } | null;
  readonly channel: { readonly id: string; readonly name: string } | null;
  /** The bot's user is a member of the guild (added now, or found already there). */
  readonly member: boolean;
  /** The starter template made for the pipe, and which starter it is (so a changed choice makes a new one). */
  readonly template: {
    readonly id: string;
    readonly title: string;
    readonly test_data: string;
    readonly format: StarterFormat;
  } | null;
  readonly pipe: { readonly id: string; readonly title: string; readonly template_id: string | null } | null;
  /** The pipe's URL with its token: shown once, kept in memory while the screen lives. */
  readonly url: string | null;
}

export const EMPTY_STATE: FirstPipeState = {
  bot: null,
  botToken: null,
  owner: null,
  guild: null,
  channel: null,
  member: false,
  template: null,
  pipe: null,
  url: null,
};

/** What the operator chose (prefilled with defaults). */
export interface FirstPipeChoices {
  readonly botName: string;
  /** The user who owns the new server: an existing user id, or one to create. */
  readonly ownerId: string;
  readonly guildName: string;
  readonly channelName: string;
  readonly pipeTitle: string;
  readonly format: PipeFormat;
}

/** A starter template the flow can make for the bot. */
export type StarterFormat = 'kmarkdown' | 'card';
/** How the pipe's messages are written: a starter template, or plain text (no template). */
export type PipeFormat = StarterFormat | 'plain';

/** A fresh numeric user id for the server's owner (ms + 3 random digits, as the server makes ids). */
export const newUserId = (now = Date.now(), random = Math.random()): string =>
  `${now}${String(Math.floor(random * 1000)).padStart(3, '0')}`;

export const defaultChoices = (
  names: { bot: string; guild: string; channel: string; pipe: string },
  ownerId = newUserId(),
): FirstPipeChoices => ({
  botName: names.bot,
  ownerId,
  guildName: names.guild,
  channelName: names.channel,
  pipeTitle: names.pipe,
  format: 'kmarkdown',
});

/** The calls a step still has to make. Empty: the step is done. */
export function planStep(step: StepId, s: FirstPipeState, c: FirstPipeChoices): Op[] {
  const ops: Op[] = [];
  switch (step) {
    case 'bot':
      if (!s.bot) ops.push('create-bot');
      break;
    case 'place':
      if (!s.guild && !s.owner) ops.push('ensure-owner');
      if (!s.guild) ops.push('create-guild');
      if (!s.channel) ops.push('create-channel');
      break;
    case 'member':
      if (!s.member) ops.push('add-member');
      break;
    case 'pipe':
      if (s.pipe) break;
      // A template an earlier run made for the other starter is not the one chosen now.
      if (c.format !== 'plain' && s.template?.format !== c.format) ops.push('create-template');
      ops.push('create-pipe');
      break;
  }
  return ops;
}

export const stepDone = (step: StepId, s: FirstPipeState, c: FirstPipeChoices): boolean =>
  planStep(step, s, c).length === 0;

/** A step can run once every step before it is done. */
export function stepReady(step: StepId, s: FirstPipeState, c: FirstPipeChoices): boolean {
  const i = STEPS.indexOf(step);
  return STEPS.slice(0, i).every((p) => stepDone(p, s, c));
}

/** The first step not done, or 'done' when the pipe exists. */
export function currentStep(s: FirstPipeState, c: FirstPipeChoices): StepId | 'done' {
  return STEPS.find((step) => !stepDone(step, s, c)) ?? 'done';
}

/**
 * Why an op cannot run with this state (a missing prerequisite), or null. The screen shows it in
 * place of calling the API with an empty id.
 */
export function opBlocker(
  op: Op,
  s: FirstPipeState,
): 'no-bot' | 'no-guild' | 'no-token' | 'no-channel' | null {
  switch (op) {
    case 'create-channel':
    case 'add-member':
      if (!s.bot) return 'no-bot';
      return s.guild ? null : 'no-guild';
    case 'create-template':
      if (!s.bot) return 'no-bot';
      return s.botToken ? null : 'no-token';
    case 'create-pipe':
      if (!s.bot) return 'no-bot';
      return s.channel ? null : 'no-channel';
    default:
      return null;
  }
}

/** The starter templates: each shows a title and a line of text from the sent data, with defaults. */
export const STARTER_TEMPLATES: Readonly<
  Record<StarterFormat, { readonly msgtype: number; readonly content: string; readonly test_data: string }>
> = {
  /** KMarkdown: a bold title and the text. */
  kmarkdown: {
    msgtype: 1,
    content: "**{{ data.title|default('Herald') }}**\n{{ data.text|default('(no text)') }}",
    test_data: '{"title":"Hello from Herald","text":"Your first pipe works."}',
  },
  /**
   * A card as JSON (msgtype 2): a header with the title, a section with the text as KMarkdown, a
   * divider and a context with the time it was sent. Every value written into a JSON string goes
   * through json_escape, so quotes, backslashes and line breaks in the data keep the JSON valid;
   * the title is cut to the header's 100 characters, so a long one still sends.
   */
  card: {
    msgtype: 2,
    content: `[
  {
    "type": "card",
    "theme": "primary",
    "size": "lg",
    "modules": [
      {
        "type": "header",
        "text": { "type": "plain-text", "content": "{{ data.title|default('Herald')|slice(0, 100)|json_escape }}" }
      },
      {
        "type": "section",
        "text": { "type": "kmarkdown", "content": "{{ data.text|default('(no text)')|json_escape }}" }
      },
      { "type": "divider" },
      {
        "type": "context",
        "elements": [{ "type": "plain-text", "content": "{{ 'now'|date('Y-m-d H:i T') }}" }]
      }
    ]
  }
]`,
    test_data:
      '{"title":"Hello from Herald","text":"Your first pipe works: this card was drawn from **your data**."}',
  },
};

/** Channel permissions the flow grants the bot's user on its new channel: view and send. */
export const BOT_CHANNEL_ALLOW = 2048 | 4096;
