import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { EVERYONE_ROLE_ID, roleLabel, toggleRole } from '../directory-model.ts';
import { formatTime } from '../i18n.ts';
import type { GuildView, MemberView, Paged, RoleView } from '../ops-types.ts';
import { Badge, Confirm, ErrorNote, Field, Loading, Table, useAction } from '../ui/components.tsx';
import { FieldError, FormError, fieldMessage, type LocalErrors } from '../ui/form-errors.tsx';
import { Pager } from '../ui/pager.tsx';
import { useLoad } from '../ui/use-load.ts';
import { type Reload, t } from './guild-messages.ts';

/* The guild screen's members: the list with their roles, role edits, removal, and adding one. */

const memberName = (m: MemberView) =>
  m.user ? `${m.user.nickname || m.user.username}#${m.user.identify_num}` : m.user_id;

function RolePicks(props: {
  legend: string;
  roles: readonly RoleView[];
  held: number[];
  onChange: (r: number[]) => void;
}) {
  const pickable = props.roles.filter((r) => r.role_id !== EVERYONE_ROLE_ID);
  return (
    <fieldset class="role-picks">
      <legend>{props.legend}</legend>
      {pickable.length === 0 && <p class="muted">{t('noRoles')}</p>}
      {pickable.map((r) => (
        <label class="check" key={r.role_id}>
          <input
            type="checkbox"
            checked={props.held.includes(r.role_id)}
            onChange={(e) => props.onChange(toggleRole(props.held, r.role_id, e.currentTarget.checked))}
          />
          {r.name} <span class="muted mono">({r.role_id})</span>
        </label>
      ))}
    </fieldset>
  );
}

function MemberRow(props: { guild: GuildView; member: MemberView; onChanged: Reload }) {
  const { guild, member } = props;
  const [editing, setEditing] = useState(false);
  const [roles, setRoles] = useState(member.roles);
  const [confirm, setConfirm] = useState(false);
  const save = useAction(async () => {
    await api.post('/admin/api/guild-member/update', { guild_id: guild.id, user_id: member.user_id, roles });
    setEditing(false);
    props.onChanged();
  });
  const remove = useAction(async () => {
    await api.post('/admin/api/guild-member/remove', { guild_id: guild.id, user_id: member.user_id });
    props.onChanged();
  });
  const isOwner = member.user_id === guild.user_id;
  const name = memberName(member);
  return (
    <tr>
      <td>
        {name} {member.user?.bot && <Badge status="info" label={t('bot')} />}
        <div class="muted mono">{member.user_id}</div>
      </td>
      <td>
        {editing ? (
          <form
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              void save.run();
            }}
          >
            <RolePicks legend={t('rolesOf', { name })} roles={guild.roles} held={roles} onChange={setRoles} />
            {save.error !== undefined && <ErrorNote error={save.error} />}
            <div class="actions">
              <button type="submit" disabled={save.busy}>
                {t('save')}
              </button>
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  setRoles(member.roles);
                  setEditing(false);
                }}
              >
                {t('cancel')}
              </button>
            </div>
          </form>
        ) : (
          <span class="role-badges">
            {member.roles.map((r) => (
              <Badge key={r} status="role" label={roleLabel(guild.roles, r)} />
            ))}
          </span>
        )}
      </td>
      <td>{formatTime(member.joined_at)}</td>
      <td>
        <div class="actions">
          {!editing && (
            <button type="button" class="secondary" onClick={() => setEditing(true)}>
              {t('editRoles')}
            </button>
          )}
          <button
            type="button"
            class="secondary"
            disabled={isOwner || remove.busy}
            title={isOwner ? t('ownerCannot') : undefined}
            onClick={() => setConfirm(true)}
          >
            {t('removeMember')}
          </button>
        </div>
        {remove.error !== undefined && <ErrorNote error={remove.error} />}
        <Confirm
          open={confirm}
          title={t('removeMemberTitle', { name })}
          confirmLabel={t('removeMember')}
          danger
          onCancel={() => setConfirm(false)}
          onConfirm={() => {
            setConfirm(false);
            void remove.run();
          }}
        >
          <p>{t('removeMemberBody')}</p>
        </Confirm>
      </td>
    </tr>
  );
}

function AddMember(props: { guild: GuildView; onAdded: Reload }) {
  const [userId, setUserId] = useState('');
  const [nickname, setNickname] = useState('');
  const [roles, setRoles] = useState<number[]>([]);
  const [local, setLocal] = useState<LocalErrors>({});
  const add = useAction(async () => {
    if (userId.trim() === '') {
      setLocal({ user_id: t('required') });
      return;
    }
    setLocal({});
    await api.post('/admin/api/guild-member/add', {
      guild_id: props.guild.id,
      user_id: userId.trim(),
      roles,
      ...(nickname.trim() !== '' ? { nickname: nickname.trim() } : {}),
    });
    setUserId('');
    setNickname('');
    setRoles([]);
    props.onAdded();
  });
  const msg = (f: string) => fieldMessage(f, add.error, local);
  return (
    <form
      class="panel"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void add.run();
      }}
    >
      <h3>{t('addMember')}</h3>
      <div class="form-grid">
        <Field label={t('userId')} hint={t('userIdHint')}>
          <input
            class="mono"
            value={userId}
            maxLength={64}
            aria-invalid={msg('user_id') ? true : undefined}
            onInput={(e) => setUserId(e.currentTarget.value)}
          />
          <FieldError message={msg('user_id')} />
        </Field>
        <Field label={t('nickname')}>
          <input value={nickname} maxLength={64} onInput={(e) => setNickname(e.currentTarget.value)} />
          <FieldError message={msg('nickname')} />
        </Field>
      </div>
      <RolePicks legend={t('memberRolesPick')} roles={props.guild.roles} held={roles} onChange={setRoles} />
      <FormError error={add.error} fields={['user_id', 'nickname']} />
      <button type="submit" disabled={add.busy}>
        {t('addMember')}
      </button>
    </form>
  );
}

const MEMBER_PAGE = 20;

export function Members(props: { guild: GuildView }) {
  const g = props.guild;
  const [page, setPage] = useState(1);
  const list = useLoad(
    () =>
      api.get<Paged<MemberView>>('/admin/api/guild-member/list', {
        guild_id: g.id,
        page,
        page_size: MEMBER_PAGE,
      }),
    [g.id, page],
  );
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">{t('members')}</h2>
      {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data && (
        <>
          <Table
            caption={t('members')}
            head={[t('user'), t('memberRoles'), t('joined'), '']}
            empty={t('noMembers')}
            rows={list.data.items.length}
          >
            {list.data.items.map((m) => (
              <MemberRow key={`${m.user_id}:${m.updated_at}`} guild={g} member={m} onChanged={list.reload} />
            ))}
          </Table>
          <Pager
            page={list.data.meta.page}
            pageTotal={list.data.meta.page_total}
            total={list.data.meta.total}
            onPage={setPage}
          />
        </>
      )}
      <AddMember guild={g} onAdded={list.reload} />
    </section>
  );
}
