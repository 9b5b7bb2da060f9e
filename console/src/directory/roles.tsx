import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { EVERYONE_ROLE_ID, type RoleChange, rolesBody } from '../directory-model.ts';
import type { GuildView, RoleView } from '../ops-types.ts';
import { Confirm, ErrorNote, Field, Notice, useAction } from '../ui/components.tsx';
import { FieldError, type LocalErrors } from '../ui/form-errors.tsx';
import { PermissionChecks } from '../ui/permission-checks.tsx';
import { displayRoleName, type Reload, t } from './guild-messages.ts';

/* The guild screen's roles: each role's name and permission bits, saved one role at a time. */

function RoleRow(props: {
  guild: GuildView;
  role: RoleView;
  /** This row's save was the last one: the row is new (remounted by the reload), the notice stays. */
  justSaved: boolean;
  onSaved: Reload;
  onRemoved: Reload;
}) {
  const { role } = props;
  const [name, setName] = useState(role.name);
  const [mask, setMask] = useState(role.permissions);
  const [confirm, setConfirm] = useState(false);
  const [saved, setSaved] = useState(props.justSaved);
  const send = (change: RoleChange) =>
    api.post('/admin/api/guild/update', { id: props.guild.id, roles: rolesBody(props.guild.roles, change) });
  const save = useAction(async () => {
    setSaved(false);
    await send({ kind: 'update', role_id: role.role_id, name: name.trim(), permissions: mask });
    setSaved(true);
    props.onSaved();
  });
  const remove = useAction(async () => {
    await send({ kind: 'remove', role_id: role.role_id });
    props.onRemoved();
  });
  const changed = name !== role.name || mask !== role.permissions;
  const title = displayRoleName(role);
  return (
    <li class="role-row">
      <form
        noValidate
        aria-label={t('roleTitle', { name: title, id: role.role_id })}
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <div class="role-head">
          <Field label={t('roleName')}>
            <input
              value={name}
              maxLength={100}
              onInput={(e) => {
                setSaved(false);
                setName(e.currentTarget.value);
              }}
            />
          </Field>
          <span class="muted mono">id {role.role_id}</span>
        </div>
        <PermissionChecks
          legend={t('permissionsOf', { name: title })}
          mask={mask}
          onChange={(m) => {
            setSaved(false);
            setMask(m);
          }}
        />
        {(save.error ?? remove.error) !== undefined && <ErrorNote error={save.error ?? remove.error} />}
        {saved && <Notice kind="ok">{t('saved')}</Notice>}
        <div class="actions">
          <button type="submit" disabled={save.busy || !changed}>
            {t('save')}
          </button>
          {role.role_id !== EVERYONE_ROLE_ID && (
            <button type="button" class="secondary" onClick={() => setConfirm(true)} disabled={remove.busy}>
              {t('removeRole')}
            </button>
          )}
        </div>
      </form>
      <Confirm
        open={confirm}
        title={t('removeRoleTitle', { name: title })}
        confirmLabel={t('remove')}
        danger
        onCancel={() => setConfirm(false)}
        onConfirm={() => {
          setConfirm(false);
          void remove.run();
        }}
      >
        <p>{t('removeRoleBody')}</p>
      </Confirm>
    </li>
  );
}

function AddRole(props: { guild: GuildView; onSaved: Reload }) {
  const [name, setName] = useState('');
  const [mask, setMask] = useState(0);
  const [local, setLocal] = useState<LocalErrors>({});
  const add = useAction(async () => {
    if (name.trim() === '') {
      setLocal({ name: t('required') });
      return;
    }
    setLocal({});
    await api.post('/admin/api/guild/update', {
      id: props.guild.id,
      roles: rolesBody(props.guild.roles, { kind: 'add', name: name.trim(), permissions: mask }),
    });
    setName('');
    setMask(0);
    props.onSaved();
  });
  return (
    <form
      class="role-row"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void add.run();
      }}
    >
      <h3>{t('addRole')}</h3>
      <Field label={t('roleName')}>
        <input
          value={name}
          maxLength={100}
          aria-invalid={local.name ? true : undefined}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <FieldError message={local.name} />
      </Field>
      <PermissionChecks legend={t('newRolePerms')} mask={mask} onChange={setMask} />
      {add.error !== undefined && <ErrorNote error={add.error} />}
      <button type="submit" disabled={add.busy}>
        {t('addRole')}
      </button>
    </form>
  );
}

export function Roles(props: { guild: GuildView; onSaved: Reload }) {
  const g = props.guild;
  // A saved row is keyed by its stored values, so the reload after a save mounts it afresh: the
  // "Saved." it showed is carried over here, or it would vanish as soon as the reload lands.
  const [justSaved, setJustSaved] = useState<number | null>(null);
  return (
    <section aria-labelledby="roles-title">
      <h2 id="roles-title">{t('roles')}</h2>
      <p class="field-hint">{t('rolesHint')}</p>
      <ul class="role-list">
        {g.roles.map((r) => (
          // Keyed by the stored values so a save elsewhere refreshes the row's fields.
          <RoleRow
            key={`${r.role_id}:${r.name}:${r.permissions}`}
            guild={g}
            role={r}
            justSaved={justSaved === r.role_id}
            onSaved={() => {
              setJustSaved(r.role_id);
              props.onSaved();
            }}
            onRemoved={() => {
              setJustSaved(null);
              props.onSaved();
            }}
          />
        ))}
      </ul>
      <AddRole guild={g} onSaved={props.onSaved} />
    </section>
  );
}
