import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import { botPost } from '../bot-api.ts';
import { deliveriesPath } from '../deliveries.ts';
import {
  BOT_CHANNEL_ALLOW,
  currentStep,
  defaultChoices,
  EMPTY_STATE,
  type FirstPipeChoices,
  type FirstPipeState,
  type Op,
  opBlocker,
  type PipeFormat,
  planStep,
  STARTER_TEMPLATES,
  type StepId,
  stepDone,
  stepReady,
} from '../first-pipe-plan.ts';
import { lang, translator } from '../i18n.ts';
import { sampleBody } from '../pipe-model.ts';
import { Link } from '../router.tsx';
import { Confirm, ErrorNote, Field, Notice, Page, ShownOnce } from '../ui/components.tsx';
import { CurlBlock } from '../ui/curl-block.tsx';
import { SendTest } from '../ui/send-test.tsx';

const t = translator({
  'zh-CN': {
    title: '引导创建第一个管道',
    intro:
      '从空白安装开始，一步步创建机器人、服务器和频道、成员关系，最后是管道。每一步都会显示创建了什么；某一步失败时，修正后再运行一次即可：已经创建的内容会被复用，不会重复创建。',
    startOver: '重新开始',
    startOverTitle: '重新开始？',
    startOverBody: '这只会清空本页的进度，已创建的内容会保留。管道 URL 不会再显示。',
    step: '第 {n} 步',
    done: '已完成',
    todo: '待完成',
    waiting: '先完成上一步',
    run: '运行这一步',
    rerun: '重试这一步',
    running: '正在运行…',
    // step 1
    botTitle: '机器人',
    botName: '机器人名称',
    botRun: '创建机器人',
    botMade: '已创建机器人 {name}',
    botIds: 'ID {id}，用户 ID {user}',
    botToken: '机器人令牌',
    // step 2
    placeTitle: '服务器和频道',
    owner: '服务器所有者的用户 ID',
    ownerHint: '已有用户的 ID；不存在时会以这个 ID 创建用户 console-operator。',
    guildName: '服务器名称',
    channelName: '频道名称',
    placeRun: '创建服务器和频道',
    ownerFound: '所有者：已有用户 {id}',
    ownerMade: '所有者：新建用户 {id}',
    guildMade: '服务器 {name}',
    channelMade: '文字频道 #{name}，机器人有查看和发送权限',
    // step 3
    memberTitle: '成员关系',
    memberText: '以机器人的用户 ID {user}（不是机器人 ID）把 {bot} 加入 {guild}。',
    memberRun: '加入服务器',
    memberMade: '{bot} 是 {guild} 的成员',
    // step 4
    pipeTitle: '管道',
    pipeName: '管道名称',
    format: '消息格式',
    formatTemplate: '入门 KMarkdown 模板（为这个机器人创建）',
    formatCard: '入门卡片模板（为这个机器人创建）：标题、正文、分隔线和发送时间',
    formatPlain: '纯文本（请求体为 {"content": "…"}）',
    pipeRun: '创建管道',
    templateMade: '模板 {title}',
    pipeMade: '管道 {title}',
    templateTitle: '{pipe} 模板',
    // finish
    finishTitle: '完成：发送第一条消息',
    url: '管道 URL',
    urlGone: '管道 URL 只显示一次，本页已不再保存它。需要的话在管道页面更换 URL。',
    openPipe: '打开管道页面',
    deliveries: '这个管道的投递',
    // blockers
    'no-bot': '还没有机器人：先完成第 1 步。',
    'no-guild': '还没有服务器：先完成第 2 步。',
    'no-channel': '还没有频道：先完成第 2 步。',
    'no-token':
      '机器人令牌只在创建机器人时保存在本页内存中，现在已经没有了：请选择纯文本，或在机器人页面更换令牌后用机器人 API 创建模板。',
    stepsDone: '{n} / 4 步已完成',
  },
  'en-US': {
    title: 'A guided first pipe',
    intro:
      'From an empty install, one step at a time: a bot, a server and channel, the membership, then the pipe. Each step shows what it created. If a step fails, fix the cause and run it again: what was already made is reused, never created twice.',
    startOver: 'Start over',
    startOverTitle: 'Start over?',
    startOverBody:
      "This only forgets this page's progress: what was created stays. The pipe URL will not be shown again.",
    step: 'Step {n}',
    done: 'Done',
    todo: 'To do',
    waiting: 'Finish the step before first',
    run: 'Run this step',
    rerun: 'Run this step again',
    running: 'Running…',
    botTitle: 'Bot',
    botName: 'Bot name',
    botRun: 'Create the bot',
    botMade: 'Created the bot {name}',
    botIds: 'id {id}, user id {user}',
    botToken: 'Bot token',
    placeTitle: 'Server and channel',
    owner: "Server owner's user id",
    ownerHint: 'An existing user id; if there is no such user, a user console-operator is created with it.',
    guildName: 'Server name',
    channelName: 'Channel name',
    placeRun: 'Create the server and channel',
    ownerFound: 'Owner: existing user {id}',
    ownerMade: 'Owner: new user {id}',
    guildMade: 'Server {name}',
    channelMade: 'Text channel #{name}, where the bot may view and send',
    memberTitle: 'Membership',
    memberText: 'Adds {bot} to {guild} by its user id {user} (not the bot id).',
    memberRun: 'Add to the server',
    memberMade: '{bot} is a member of {guild}',
    pipeTitle: 'Pipe',
    pipeName: 'Pipe title',
    format: 'Message format',
    formatTemplate: 'A starter KMarkdown template (created for the bot)',
    formatCard: 'A starter card template (created for the bot): a header, the text, a divider and the time',
    formatPlain: 'Plain text (the body is {"content": "…"})',
    pipeRun: 'Create the pipe',
    templateMade: 'Template {title}',
    pipeMade: 'Pipe {title}',
    templateTitle: '{pipe} template',
    finishTitle: 'Done: send the first message',
    url: 'Pipe URL',
    urlGone:
      "The pipe URL is shown only once and this page no longer holds it. Rotate it on the pipe's page if needed.",
    openPipe: "Open the pipe's page",
    deliveries: "This pipe's deliveries",
    'no-bot': 'There is no bot yet: finish step 1 first.',
    'no-guild': 'There is no server yet: finish step 2 first.',
    'no-channel': 'There is no channel yet: finish step 2 first.',
    'no-token':
      "The bot token was held only in this page's memory when the bot was created and is gone now: choose plain text, or rotate the bot's token and create a template through the bot API.",
    stepsDone: '{n} of 4 steps done',
  },
});

const FORMATS: readonly { value: PipeFormat; label: 'formatTemplate' | 'formatCard' | 'formatPlain' }[] = [
  { value: 'kmarkdown', label: 'formatTemplate' },
  { value: 'card', label: 'formatCard' },
  { value: 'plain', label: 'formatPlain' },
];

type Names = { bot: string; guild: string; channel: string; pipe: string };
const NAMES: Record<'zh-CN' | 'en-US', Names> = {
  'zh-CN': { bot: 'Herald 机器人', guild: 'Herald 总部', channel: '通知', pipe: '第一个管道' },
  'en-US': { bot: 'Herald Bot', guild: 'Herald HQ', channel: 'announcements', pipe: 'First pipe' },
};

/*
 * The flow's progress lives in module memory: it survives moving to another screen and back, not
 * a reload. The bot token and the pipe URL are in it, so it is never written to storage.
 */
const progress = signal<FirstPipeState>(EMPTY_STATE);
const choices = signal<FirstPipeChoices | null>(null);

/** Default names the operator has not edited follow a language switch, until something is made. */
function followLanguage(now: 'zh-CN' | 'en-US'): void {
  const c = choices.peek();
  if (!c || progress.peek() !== EMPTY_STATE) return;
  const other = NAMES[now === 'zh-CN' ? 'en-US' : 'zh-CN'];
  const next = NAMES[now];
  const swap = (v: string, from: string, to: string) => (v === from ? to : v);
  const swapped = {
    ...c,
    botName: swap(c.botName, other.bot, next.bot),
    guildName: swap(c.guildName, other.guild, next.guild),
    channelName: swap(c.channelName, other.channel, next.channel),
    pipeTitle: swap(c.pipeTitle, other.pipe, next.pipe),
  };
  if (JSON.stringify(swapped) !== JSON.stringify(c)) choices.value = swapped;
}

/** Runs one call of a step and answers what it made. */
async function runOp(op: Op, s: FirstPipeState, c: FirstPipeChoices): Promise<Partial<FirstPipeState>> {
  switch (op) {
    case 'create-bot': {
      const r = await api.post<{ bot: { id: string; name: string; user_id: string }; token: string }>(
        '/admin/api/bot/create',
        { name: c.botName.trim() },
      );
      return { bot: { id: r.bot.id, name: r.bot.name, user_id: r.bot.user_id }, botToken: r.token };
    }
    case 'ensure-owner': {
      const id = c.ownerId.trim();
      try {
        await api.get('/admin/api/user/view', { id });
        return { owner: { id, created: false } };
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 404)) throw e;
      }
      await api.post('/admin/api/user/upsert', { id, username: 'console-operator' });
      return { owner: { id, created: true } };
    }
    case 'create-guild': {
      const r = await api.post<{ guild: { id: string; name: string } }>('/admin/api/guild/create', {
        name: c.guildName.trim(),
        user_id: s.owner?.id,
      });
      return { guild: { id: r.guild.id, name: r.guild.name } };
    }
    case 'create-channel': {
      const r = await api.post<{ channel: { id: string; name: string } }>('/admin/api/channel/create', {
        guild_id: s.guild?.id,
        name: c.channelName.trim(),
        type: 1,
        // The bot's own overwrite grants view and send, whatever the everyone role allows.
        permission_users: [{ user_id: s.bot?.user_id, allow: BOT_CHANNEL_ALLOW }],
      });
      return { channel: { id: r.channel.id, name: r.channel.name } };
    }
    case 'add-member': {
      try {
        await api.post('/admin/api/guild-member/add', { guild_id: s.guild?.id, user_id: s.bot?.user_id });
      } catch (e) {
        // Already a member (an earlier run got this far, or the bot owns the server): nothing to add.
        if (!(e instanceof ApiError && e.status === 409 && e.code === 40902)) throw e;
      }
      return { member: true };
    }
    case 'create-template': {
      // planStep asks for a template only for a starter format.
      const format = c.format === 'plain' ? 'kmarkdown' : c.format;
      const starter = STARTER_TEMPLATES[format];
      const r = await botPost<{ model: { id: string; title: string; test_data: string } }>(
        s.botToken ?? '',
        '/api/v3/template/create',
        {
          title: t('templateTitle', { pipe: c.pipeTitle.trim() }).slice(0, 64),
          content: starter.content,
          msgtype: starter.msgtype,
          test_data: starter.test_data,
        },
      );
      return { template: { id: r.model.id, title: r.model.title, test_data: r.model.test_data, format } };
    }
    case 'create-pipe': {
      const templateId = c.format !== 'plain' && s.template?.format === c.format ? s.template.id : null;
      const r = await api.post<{
        pipe: { id: string; title: string; template_id: string | null };
        url: string;
      }>('/admin/api/pipe/create', {
        bot_id: s.bot?.id,
        title: c.pipeTitle.trim(),
        channel_id: s.channel?.id,
        template_id: templateId,
      });
      return { pipe: { id: r.pipe.id, title: r.pipe.title, template_id: r.pipe.template_id }, url: r.url };
    }
  }
}

export default function FirstPipeScreen(_props: { params: Record<string, string> }) {
  if (choices.peek() === null) choices.value = defaultChoices(NAMES[lang.peek()]);
  followLanguage(lang.value);
  const c = choices.value ?? defaultChoices(NAMES[lang.peek()]);
  const s = progress.value;
  const [busy, setBusy] = useState<StepId | null>(null);
  const [errors, setErrors] = useState<Partial<Record<StepId, unknown>>>({});
  const [asking, setAsking] = useState(false);
  const set = (patch: Partial<FirstPipeChoices>) => {
    choices.value = { ...c, ...patch };
  };

  const runStep = async (step: StepId) => {
    setBusy(step);
    setErrors((e) => ({ ...e, [step]: undefined }));
    try {
      for (const op of planStep(step, progress.value, c)) {
        const blocker = opBlocker(op, progress.value);
        if (blocker) throw new Error(t(blocker));
        const made = await runOp(op, progress.value, c);
        // Kept after each call, so a failure later in the step does not lose what this one made.
        progress.value = { ...progress.value, ...made };
      }
    } catch (e) {
      setErrors((prev) => ({ ...prev, [step]: e }));
    } finally {
      setBusy(null);
    }
  };

  const doneCount = (['bot', 'place', 'member', 'pipe'] as const).filter((st) => stepDone(st, s, c)).length;
  const stepProps = (step: StepId) => ({
    step,
    done: stepDone(step, s, c),
    ready: stepReady(step, s, c),
    current: currentStep(s, c) === step,
    busy: busy === step,
    anyBusy: busy !== null,
    error: errors[step],
    onRun: () => void runStep(step),
  });

  return (
    <Page
      title={t('title')}
      actions={
        <button type="button" class="secondary" disabled={busy !== null} onClick={() => setAsking(true)}>
          {t('startOver')}
        </button>
      }
    >
      <p class="lead">{t('intro')}</p>
      <p class="muted" aria-live="polite">
        {t('stepsDone', { n: doneCount })}
      </p>
      <ol class="steps">
        <Step n={1} title={t('botTitle')} runLabel={t('botRun')} {...stepProps('bot')}>
          <Field label={t('botName')}>
            <input
              required
              maxLength={64}
              value={c.botName}
              disabled={s.bot !== null}
              onInput={(e) => set({ botName: e.currentTarget.value })}
            />
          </Field>
          {s.bot && (
            <Made>
              <li>
                <Link to={`bots/${encodeURIComponent(s.bot.id)}`}>{t('botMade', { name: s.bot.name })}</Link>{' '}
                <span class="muted">{t('botIds', { id: s.bot.id, user: s.bot.user_id })}</span>
              </li>
            </Made>
          )}
          {s.botToken && <ShownOnce label={t('botToken')} value={s.botToken} />}
        </Step>

        <Step n={2} title={t('placeTitle')} runLabel={t('placeRun')} {...stepProps('place')}>
          <div class="form-grid">
            <Field label={t('owner')} hint={t('ownerHint')}>
              <input
                required
                maxLength={64}
                class="mono"
                value={c.ownerId}
                disabled={s.owner !== null || s.guild !== null}
                onInput={(e) => set({ ownerId: e.currentTarget.value })}
              />
            </Field>
            <Field label={t('guildName')}>
              <input
                required
                maxLength={100}
                value={c.guildName}
                disabled={s.guild !== null}
                onInput={(e) => set({ guildName: e.currentTarget.value })}
              />
            </Field>
            <Field label={t('channelName')}>
              <input
                required
                maxLength={100}
                value={c.channelName}
                disabled={s.channel !== null}
                onInput={(e) => set({ channelName: e.currentTarget.value })}
              />
            </Field>
          </div>
          {(s.owner || s.guild || s.channel) && (
            <Made>
              {s.owner && <li>{t(s.owner.created ? 'ownerMade' : 'ownerFound', { id: s.owner.id })}</li>}
              {s.guild && (
                <li>
                  <Link to={`directory/${encodeURIComponent(s.guild.id)}`}>
                    {t('guildMade', { name: s.guild.name })}
                  </Link>
                </li>
              )}
              {s.channel && <li>{t('channelMade', { name: s.channel.name })}</li>}
            </Made>
          )}
        </Step>

        <Step n={3} title={t('memberTitle')} runLabel={t('memberRun')} {...stepProps('member')}>
          <p>
            {t('memberText', {
              bot: s.bot?.name ?? '…',
              guild: s.guild?.name ?? '…',
              user: s.bot?.user_id ?? '…',
            })}
          </p>
          {s.member && s.bot && s.guild && (
            <Made>
              <li>{t('memberMade', { bot: s.bot.name, guild: s.guild.name })}</li>
            </Made>
          )}
        </Step>

        <Step n={4} title={t('pipeTitle')} runLabel={t('pipeRun')} {...stepProps('pipe')}>
          <Field label={t('pipeName')}>
            <input
              required
              maxLength={64}
              value={c.pipeTitle}
              disabled={s.pipe !== null}
              onInput={(e) => set({ pipeTitle: e.currentTarget.value })}
            />
          </Field>
          <fieldset disabled={s.pipe !== null}>
            <legend>{t('format')}</legend>
            {FORMATS.map((f) => (
              <label class="check" key={f.value}>
                <input
                  type="radio"
                  name="first-pipe-format"
                  checked={c.format === f.value}
                  onChange={() => set({ format: f.value })}
                />
                <span>{t(f.label)}</span>
              </label>
            ))}
          </fieldset>
          {c.format !== 'plain' && !s.pipe && (
            <pre class="raw starter">{STARTER_TEMPLATES[c.format].content}</pre>
          )}
          {(s.template || s.pipe) && (
            <Made>
              {s.template && <li>{t('templateMade', { title: s.template.title })}</li>}
              {s.pipe && (
                <li>
                  <Link to={`pipes/${encodeURIComponent(s.pipe.id)}`}>
                    {t('pipeMade', { title: s.pipe.title })}
                  </Link>
                </li>
              )}
            </Made>
          )}
        </Step>
      </ol>

      {s.pipe && (
        <section class="panel finish" aria-labelledby="first-pipe-finish">
          <h2 id="first-pipe-finish">{t('finishTitle')}</h2>
          {s.url ? (
            <>
              <ShownOnce label={t('url')} value={s.url} />
              <CurlBlock
                url={s.url}
                body={sampleBody(s.pipe.template_id !== null && s.template ? s.template : null)}
              />
            </>
          ) : (
            <Notice kind="warn">{t('urlGone')}</Notice>
          )}
          <SendTest pipeId={s.pipe.id} />
          <p class="actions">
            <Link to={`pipes/${encodeURIComponent(s.pipe.id)}`}>{t('openPipe')}</Link>
            <Link to={deliveriesPath({ pipe_id: s.pipe.id })}>{t('deliveries')}</Link>
          </p>
        </section>
      )}

      <Confirm
        open={asking}
        title={t('startOverTitle')}
        confirmLabel={t('startOver')}
        onCancel={() => setAsking(false)}
        onConfirm={() => {
          setAsking(false);
          progress.value = EMPTY_STATE;
          choices.value = defaultChoices(NAMES[lang.value]);
          setErrors({});
        }}
      >
        <p>{t('startOverBody')}</p>
      </Confirm>
    </Page>
  );
}

function Made(props: { children: ComponentChildren }) {
  return <ul class="made">{props.children}</ul>;
}

function Step(props: {
  n: number;
  step: StepId;
  title: string;
  runLabel: string;
  done: boolean;
  ready: boolean;
  current: boolean;
  busy: boolean;
  anyBusy: boolean;
  error: unknown;
  onRun: () => void;
  children: ComponentChildren;
}) {
  const id = `first-pipe-${props.step}`;
  const state = props.done ? 'done' : props.ready ? 'todo' : 'waiting';
  return (
    <li class={`step step-${state}`} aria-labelledby={id} aria-current={props.current ? 'step' : undefined}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onRun();
        }}
      >
        <div class="step-head">
          <h2 id={id}>
            <span class="step-n">{t('step', { n: props.n })}</span> {props.title}
          </h2>
          <span class={`badge badge-${props.done ? 'sent' : props.ready ? 'queued' : 'none'}`}>
            {props.done ? t('done') : props.ready ? t('todo') : t('waiting')}
          </span>
        </div>
        {props.children}
        {props.error !== undefined && <ErrorNote error={props.error} />}
        {!props.done && (
          <button type="submit" disabled={!props.ready || props.anyBusy}>
            {props.busy ? t('running') : props.error !== undefined ? t('rerun') : props.runLabel}
          </button>
        )}
      </form>
    </li>
  );
}
