import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  channelOverwrites,
  type OverwriteDraft,
  overwritesBody,
  overwritesChanged,
  roleLabel,
  targetKey,
} from '../directory-model.ts';
import { lang } from '../i18n.ts';
import type { BotView, ChannelView, GuildView, RoleView, SendExplanation } from '../ops-types.ts';
import { describeMask, PERMISSION_BITS } from '../permissions.ts';
import { route } from '../router.tsx';
import { BotPicker } from '../ui/bot-picker.tsx';
import { Badge, ErrorNote, Field, Notice, Table, useAction } from '../ui/components.tsx';
import { FieldError, FormError, fieldMessage, type LocalErrors } from '../ui/form-errors.tsx';
import { OverwriteChoices } from '../ui/permission-checks.tsx';
import { displayRoleName, type Reload, t } from './guild-messages.ts';

const channelType = (c: ChannelView) =>
  c.is_category ? t('category') : c.type === 2 ? t('voice') : t('text');

/* The guild screen's channels: the list, a new channel, and one channel's overwrites and send check. */

function OverwriteEditor(props: {
  guild: GuildView;
  channel: ChannelView;
  justSaved: boolean;
  onSaved: Reload;
}) {
  const { guild, channel } = props;
  const [drafts, setDrafts] = useState<OverwriteDraft[]>(() => channelOverwrites(channel));
  const [roleToAdd, setRoleToAdd] = useState('');
  const [userToAdd, setUserToAdd] = useState('');
  const [local, setLocal] = useState<LocalErrors>({});
  const [saved, setSaved] = useState(props.justSaved);
  const save = useAction(async () => {
    setSaved(false);
    await api.post('/admin/api/channel/update', { id: channel.id, ...overwritesBody(drafts) });
    props.onSaved();
  });
  const used = new Set(drafts.map((d) => targetKey(d.target)));
  const freeRoles = guild.roles.filter((r) => !used.has(`role:${r.role_id}`));
  const dirty = overwritesChanged(channel, drafts);
  const update = (next: OverwriteDraft[]) => {
    setSaved(false);
    setDrafts(next);
  };
  // The API names a row by its place in its own list (roles or users).
  let roleIndex = 0;
  let userIndex = 0;
  const fields: string[] = [];
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h3>{t('channelOverwrites')}</h3>
      <p class="field-hint">{t('overwritesHint')}</p>
      {drafts.length === 0 && <p class="muted">{t('noOverwrites')}</p>}
      {drafts.map((d) => {
        const field =
          d.target.kind === 'role'
            ? `permission_overwrites[${roleIndex++}].role_id`
            : `permission_users[${userIndex++}].user_id`;
        fields.push(field);
        const label =
          d.target.kind === 'role'
            ? t('roleOverwrite', { name: roleLabel(guild.roles, d.target.role_id) })
            : t('userOverwrite', {
                name: d.target.name ? `${d.target.name} (${d.target.user_id})` : d.target.user_id,
              });
        const key = targetKey(d.target);
        return (
          <fieldset key={key} class="overwrite">
            <legend>{label}</legend>
            <OverwriteChoices
              masks={d}
              onChange={(m) => update(drafts.map((x) => (targetKey(x.target) === key ? { ...x, ...m } : x)))}
            />
            <FieldError message={fieldMessage(field, save.error)} />
            <button
              type="button"
              class="secondary"
              aria-label={`${t('removeOverwrite')}: ${label}`}
              onClick={() => update(drafts.filter((x) => targetKey(x.target) !== key))}
            >
              {t('removeOverwrite')}
            </button>
          </fieldset>
        );
      })}
      <div class="form-grid">
        <div class="inline-form">
          <Field label={t('addRoleOverwrite')}>
            <select value={roleToAdd} onChange={(e) => setRoleToAdd(e.currentTarget.value)}>
              <option value="">{t('chooseRole')}</option>
              {freeRoles.map((r) => (
                <option key={r.role_id} value={String(r.role_id)}>
                  {displayRoleName(r)} ({r.role_id})
                </option>
              ))}
            </select>
          </Field>
          <button
            type="button"
            class="secondary"
            disabled={roleToAdd === ''}
            onClick={() => {
              update([
                ...drafts,
                { target: { kind: 'role', role_id: Number(roleToAdd) }, allow: 0, deny: 0 },
              ]);
              setRoleToAdd('');
            }}
          >
            {t('add')}
          </button>
        </div>
        <div class="inline-form">
          <Field label={t('addUserOverwrite')}>
            <input
              class="mono"
              value={userToAdd}
              maxLength={64}
              aria-invalid={local.user ? true : undefined}
              onInput={(e) => setUserToAdd(e.currentTarget.value)}
            />
            <FieldError message={local.user} />
          </Field>
          <button
            type="button"
            class="secondary"
            disabled={userToAdd.trim() === ''}
            onClick={() => {
              const id = userToAdd.trim();
              if (used.has(`user:${id}`)) {
                setLocal({ user: t('duplicate') });
                return;
              }
              setLocal({});
              update([...drafts, { target: { kind: 'user', user_id: id, name: '' }, allow: 0, deny: 0 }]);
              setUserToAdd('');
            }}
          >
            {t('add')}
          </button>
        </div>
      </div>
      <FormError error={save.error} fields={fields} />
      {dirty && <Notice kind="warn">{t('unsaved')}</Notice>}
      {saved && !dirty && <Notice kind="ok">{t('saved')}</Notice>}
      <div class="actions">
        <button type="submit" disabled={save.busy || !dirty}>
          {t('saveOverwrites')}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!dirty}
          onClick={() => update(channelOverwrites(channel))}
        >
          {t('discard')}
        </button>
      </div>
    </form>
  );
}

const DECIDER_KINDS = [
  'guild_owner',
  'administrator',
  'role',
  'role_overwrite',
  'user_overwrite',
  'everyone',
  'not_member',
  'bot_disabled',
] as const;

/** Who decides (or what a step is), in words; a kind this console does not know is shown as is. */
function deciderText(
  d: { kind: string; id?: number | string; name?: string },
  roles: readonly RoleView[],
): string {
  const name = d.name ?? (typeof d.id === 'number' ? roleLabel(roles, d.id) : String(d.id ?? ''));
  const kind = DECIDER_KINDS.find((k) => k === d.kind);
  return kind ? t(`k_${kind}`, { name }) : `${d.kind} ${name}`.trim();
}

const OPS = ['union', 'deny', 'allow', 'all', 'none'] as const;
/** How a step changes the mask, in words, as a prefix ('' when the server does not say). */
function opText(op: string | undefined): string {
  if (op === undefined) return '';
  const known = OPS.find((o) => o === op);
  return `${known ? t(`op_${known}`) : op}: `;
}

const permName = (key: string) => PERMISSION_BITS.find((b) => b.key === key)?.label[lang.value] ?? key;

function Explainer(props: { guild: GuildView; channel: ChannelView }) {
  const [botId, setBotId] = useState('');
  const [bot, setBot] = useState<BotView>();
  const [local, setLocal] = useState<LocalErrors>({});
  const [result, setResult] = useState<SendExplanation>();
  const check = useAction(async () => {
    setResult(undefined);
    if (botId === '') {
      setLocal({ bot_id: t('required') });
      return;
    }
    setLocal({});
    setResult(
      await api.get<SendExplanation>('/admin/api/channel/explain-send', {
        channel_id: props.channel.id,
        bot_id: botId,
      }),
    );
  });
  const effectLabel = { allow: t('effectAllow'), deny: t('effectDeny'), none: t('effectNone') };
  return (
    <section class="explain" aria-labelledby={`explain-${props.channel.id}`}>
      <h3 id={`explain-${props.channel.id}`}>{t('explain')}</h3>
      <form
        class="inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void check.run();
        }}
      >
        <BotPicker
          value={botId}
          error={local.bot_id}
          onChange={(id, b) => {
            setBotId(id);
            setBot(b);
            setResult(undefined);
          }}
        />
        <button type="submit" disabled={check.busy}>
          {t('check')}
        </button>
      </form>
      {check.error !== undefined && <ErrorNote error={check.error} />}
      {result && (
        <div class="explain-result" aria-live="polite">
          <p>
            <Badge
              status={result.allowed ? 'ok' : 'failed'}
              label={result.allowed ? t('allowed') : t('denied')}
            />{' '}
            <strong>{t('decidedBy', { who: deciderText(result.decided_by, props.guild.roles) })}</strong>
          </p>
          {result.missing && <p>{t('missing', { perm: permName(result.missing) })}</p>}
          {result.decided_by.kind === 'not_member' && bot && <p>{t('fixMember', { id: bot.user_id })}</p>}
          {result.steps.length > 0 && (
            <>
              <h4>{t('steps')}</h4>
              <ol class="steps">
                {result.steps.map((s, i) => (
                  <li key={i} class={`step step-${s.effect}`}>
                    <span>{deciderText(s, props.guild.roles)}</span>{' '}
                    <Badge
                      status={s.effect === 'allow' ? 'ok' : s.effect === 'deny' ? 'failed' : 'none'}
                      label={effectLabel[s.effect]}
                    />{' '}
                    <span class="muted">
                      {opText(s.op)}
                      {describeMask(s.permissions, lang.value)}
                      {s.after !== undefined &&
                        ` → ${t('after', { mask: describeMask(s.after, lang.value) })}`}
                    </span>
                  </li>
                ))}
              </ol>
            </>
          )}
        </div>
      )}
    </section>
  );
}

function ChannelPanel(props: {
  guild: GuildView;
  channel: ChannelView;
  onSaved: Reload;
  onClose: () => void;
}) {
  const c = props.channel;
  const [saved, setSaved] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // Opened from the table: move the keyboard (and the view) to the panel.
    heading.current?.focus();
    heading.current?.scrollIntoView?.({ block: 'start' });
  }, []);
  return (
    <section class="panel channel-panel" aria-labelledby="channel-panel-title">
      <div class="page-head">
        <h2 id="channel-panel-title" tabIndex={-1} ref={heading}>
          {t('channelPanel', { name: c.name })}
        </h2>
        <button type="button" class="secondary" onClick={props.onClose}>
          {t('close')}
        </button>
      </div>
      <p class="muted mono">
        id {c.id} · {channelType(c)}
      </p>
      {/* Keyed by the stored overwrites so a save (or a reload) starts the editor afresh. */}
      <OverwriteEditor
        key={JSON.stringify(overwritesBody(channelOverwrites(c)))}
        guild={props.guild}
        channel={c}
        justSaved={saved}
        onSaved={() => {
          setSaved(true);
          props.onSaved();
        }}
      />
      <Explainer guild={props.guild} channel={c} />
    </section>
  );
}

function CreateChannel(props: { guild: GuildView; onSaved: Reload }) {
  const [name, setName] = useState('');
  const [type, setType] = useState(1);
  const [isCategory, setIsCategory] = useState(false);
  const [parent, setParent] = useState('');
  const [topic, setTopic] = useState('');
  const [local, setLocal] = useState<LocalErrors>({});
  const categories = (props.guild.channels ?? []).filter((c) => c.is_category);
  const create = useAction(async () => {
    if (name.trim() === '') {
      setLocal({ name: t('required') });
      return;
    }
    setLocal({});
    await api.post('/admin/api/channel/create', {
      guild_id: props.guild.id,
      name: name.trim(),
      type,
      is_category: isCategory,
      ...(isCategory ? {} : { parent_id: parent }),
      ...(topic.trim() !== '' ? { topic: topic.trim() } : {}),
    });
    setName('');
    setTopic('');
    props.onSaved();
  });
  const msg = (f: string) => fieldMessage(f, create.error, local);
  return (
    <form
      class="panel"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <h3>{t('newChannel')}</h3>
      <div class="form-grid">
        <Field label={t('channelName')}>
          <input
            value={name}
            maxLength={100}
            aria-invalid={msg('name') ? true : undefined}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <FieldError message={msg('name')} />
        </Field>
        <Field label={t('type')}>
          <select value={String(type)} onChange={(e) => setType(Number(e.currentTarget.value))}>
            <option value="1">{t('text')}</option>
            <option value="2">{t('voice')}</option>
          </select>
        </Field>
        {!isCategory && (
          <Field label={t('parent')}>
            <select value={parent} onChange={(e) => setParent(e.currentTarget.value)}>
              <option value="">{t('noParent')}</option>
              {categories.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
            <FieldError message={msg('parent_id')} />
          </Field>
        )}
        <Field label={t('topic')}>
          <input value={topic} maxLength={1024} onInput={(e) => setTopic(e.currentTarget.value)} />
          <FieldError message={msg('topic')} />
        </Field>
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={isCategory}
          onChange={(e) => setIsCategory(e.currentTarget.checked)}
        />
        {t('isCategory')}
      </label>
      <FormError error={create.error} fields={['name', 'parent_id', 'topic']} />
      <p>
        <button type="submit" disabled={create.busy}>
          {t('createChannel')}
        </button>
      </p>
    </form>
  );
}

export function Channels(props: { guild: GuildView; onSaved: Reload }) {
  const g = props.guild;
  const channels = g.channels ?? [];
  // A link may name the channel to open (?channel=); then the table's buttons choose.
  const [open, setOpen] = useState(() => route.value.query.get('channel') ?? '');
  const openChannel = channels.find((c) => c.id === open);
  const byId = new Map(channels.map((c) => [c.id, c]));
  return (
    <section aria-labelledby="channels-title">
      <h2 id="channels-title">{t('channels')}</h2>
      <Table
        caption={t('channels')}
        head={[t('channel'), t('type'), t('parent'), t('overwrites'), '']}
        empty={t('noChannels')}
        rows={channels.length}
      >
        {channels.map((c) => (
          <tr key={c.id} class={c.id === open ? 'selected' : undefined}>
            <td>
              {c.is_category ? '' : '#'}
              {c.name} <span class="muted mono">{c.id}</span>
            </td>
            <td>{channelType(c)}</td>
            <td>{c.parent_id ? (byId.get(c.parent_id)?.name ?? c.parent_id) : ''}</td>
            <td>{c.permission_overwrites.length + c.permission_users.length}</td>
            <td>
              <button
                type="button"
                class="secondary"
                aria-expanded={c.id === open}
                aria-label={`${c.id === open ? t('close') : t('open')}: ${c.name}`}
                onClick={() => setOpen(c.id === open ? '' : c.id)}
              >
                {c.id === open ? t('close') : t('open')}
              </button>
            </td>
          </tr>
        ))}
      </Table>
      {openChannel && (
        <ChannelPanel
          key={openChannel.id}
          guild={g}
          channel={openChannel}
          onSaved={props.onSaved}
          onClose={() => setOpen('')}
        />
      )}
      <CreateChannel guild={g} onSaved={props.onSaved} />
    </section>
  );
}
