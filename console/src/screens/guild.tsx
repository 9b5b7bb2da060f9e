import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Channels } from '../directory/channels.tsx';
import { type Reload, t } from '../directory/guild-messages.ts';
import { Members } from '../directory/members.tsx';
import { Roles } from '../directory/roles.tsx';
import { formatTime } from '../i18n.ts';
import type { GuildView } from '../ops-types.ts';
import { Link } from '../router.tsx';
import { ErrorNote, Field, Loading, Notice, Page, useAction } from '../ui/components.tsx';
import { FieldError, FormError, fieldMessage, type LocalErrors } from '../ui/form-errors.tsx';
import { useLoad } from '../ui/use-load.ts';

/** The guild's own fields: name, topic and owner. */
function Settings(props: { guild: GuildView; justSaved: boolean; onSaved: Reload }) {
  const g = props.guild;
  const [name, setName] = useState(g.name);
  const [topic, setTopic] = useState(g.topic);
  const [owner, setOwner] = useState(g.user_id);
  const [local, setLocal] = useState<LocalErrors>({});
  const [saved, setSaved] = useState(props.justSaved);
  const save = useAction(async () => {
    setSaved(false);
    const errors: Record<string, string> = {};
    if (name.trim() === '') errors.name = t('required');
    if (owner.trim() === '') errors.user_id = t('required');
    setLocal(errors);
    if (Object.keys(errors).length > 0) return;
    await api.post('/admin/api/guild/update', {
      id: g.id,
      name: name.trim(),
      topic,
      user_id: owner.trim(),
    });
    setSaved(true);
    props.onSaved();
  });
  const msg = (f: string) => fieldMessage(f, save.error, local);
  return (
    // Open again after a save remounted it, with its notice.
    <details class="panel" open={props.justSaved || undefined}>
      <summary>
        <h2 class="inline-h">{t('settings')}</h2>
      </summary>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <div class="form-grid">
          <Field label={t('name')}>
            <input
              value={name}
              maxLength={100}
              aria-invalid={msg('name') ? true : undefined}
              onInput={(e) => setName(e.currentTarget.value)}
            />
            <FieldError message={msg('name')} />
          </Field>
          <Field label={t('topic')}>
            <input value={topic} maxLength={1000} onInput={(e) => setTopic(e.currentTarget.value)} />
            <FieldError message={msg('topic')} />
          </Field>
          <Field label={t('ownerId')} hint={t('ownerHint')}>
            <input
              class="mono"
              value={owner}
              maxLength={64}
              aria-invalid={msg('user_id') ? true : undefined}
              onInput={(e) => setOwner(e.currentTarget.value)}
            />
            <FieldError message={msg('user_id')} />
          </Field>
        </div>
        <FormError error={save.error} fields={['name', 'topic', 'user_id']} />
        {saved && <Notice kind="ok">{t('saved')}</Notice>}
        <button type="submit" disabled={save.busy}>
          {t('save')}
        </button>
      </form>
    </details>
  );
}

export default function Guild(props: { params: Record<string, string> }) {
  const id = props.params.guildId ?? '';
  const loaded = useLoad(() => api.get<{ guild: GuildView }>('/admin/api/guild/view', { id }), [id]);
  const guild = loaded.data?.guild;
  // The settings form is keyed by the stored values, so the reload after a save mounts it afresh:
  // its "Saved." is carried over here, or it would vanish as soon as the reload lands.
  const [settingsSaved, setSettingsSaved] = useState(false);
  if (loaded.error && !guild) {
    return (
      <Page title={t('back')}>
        <ErrorNote error={loaded.error} onRetry={loaded.reload} />
        <Link to="directory">{t('back')}</Link>
      </Page>
    );
  }
  if (!guild) return <Loading />;
  // Every change reloads the guild, so roles, channels and their overwrites stay one consistent view.
  return (
    <Page title={guild.name}>
      <p class="muted">
        <Link to="directory">{t('back')}</Link> ·{' '}
        {t('meta', { id: guild.id, owner: guild.user_id, created: formatTime(guild.created_at) })}
      </p>
      {loaded.error && <ErrorNote error={loaded.error} onRetry={loaded.reload} />}
      <Settings
        key={`${guild.name}|${guild.topic}|${guild.user_id}`}
        guild={guild}
        justSaved={settingsSaved}
        onSaved={() => {
          setSettingsSaved(true);
          loaded.reload();
        }}
      />
      <Roles guild={guild} onSaved={loaded.reload} />
      <Channels guild={guild} onSaved={loaded.reload} />
      <Members guild={guild} />
    </Page>
  );
}
