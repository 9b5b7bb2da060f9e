import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import { formatTime, translator } from '../i18n.ts';
import type { GuildView, Paged, UserView } from '../ops-types.ts';
import { DEFAULT_EVERYONE_PERMISSIONS } from '../permissions.ts';
import { Link, navigate } from '../router.tsx';
import { ErrorNote, Field, Loading, Notice, Page, Table, useAction } from '../ui/components.tsx';
import { FieldError, FormError, fieldMessage, type LocalErrors } from '../ui/form-errors.tsx';
import { Pager } from '../ui/pager.tsx';
import { PermissionChecks } from '../ui/permission-checks.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    title: '服务器与频道',
    guilds: '服务器',
    name: '名称',
    id: 'id',
    owner: '所有者',
    roles: '角色',
    created: '创建时间',
    empty: '还没有服务器。',
    newGuild: '新建服务器',
    guildName: '服务器名称',
    ownerId: '所有者的用户 id',
    ownerHint: '必须是已有的用户（在下方“用户”里创建）；所有者自动成为成员。',
    topic: '简介',
    everyone: '@全体成员 的权限',
    createGuild: '创建服务器',
    required: '必填',
    users: '用户',
    usersHint: '机器人创建时已有自己的用户；这里管理人类用户（频道的用户覆盖、服务器所有者和成员）。',
    userId: '用户 id',
    load: '载入',
    newUser: '没有这个用户：填写后保存即可创建。',
    loaded: '已载入用户 {id}。',
    username: '用户名',
    nickname: '昵称',
    identifyNum: '识别号（数字）',
    avatar: '头像地址',
    online: '在线',
    status: '状态',
    statusNormal: '正常',
    statusBanned: '封禁（10）',
    isBot: '这是机器人的用户',
    saveUser: '保存用户',
    userSaved: '用户 {id} 已保存。',
  },
  'en-US': {
    title: 'Directory',
    guilds: 'Servers',
    name: 'Name',
    id: 'Id',
    owner: 'Owner',
    roles: 'Roles',
    created: 'Created',
    empty: 'There are no servers yet.',
    newGuild: 'New server',
    guildName: 'Server name',
    ownerId: "Owner's user id",
    ownerHint: 'A known user (create one under Users below); the owner becomes a member.',
    topic: 'Topic',
    everyone: 'Permissions of @everyone',
    createGuild: 'Create server',
    required: 'Required',
    users: 'Users',
    usersHint:
      "A bot gets its own user when it is created; here are people's users (channel user overwrites, server owners, members).",
    userId: 'User id',
    load: 'Load',
    newUser: 'No such user: fill in the form and save to create it.',
    loaded: 'User {id} loaded.',
    username: 'Username',
    nickname: 'Nickname',
    identifyNum: 'Identify number (digits)',
    avatar: 'Avatar URL',
    online: 'Online',
    status: 'Status',
    statusNormal: 'normal',
    statusBanned: 'banned (10)',
    isBot: "This is a bot's user",
    saveUser: 'Save user',
    userSaved: 'User {id} saved.',
  },
});

const PAGE_SIZE = 20;

function GuildList() {
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => api.get<Paged<GuildView>>('/admin/api/guild/list', { page, page_size: PAGE_SIZE, sort: 'name' }),
    [page],
  );
  if (list.error) return <ErrorNote error={list.error} onRetry={list.reload} />;
  if (!list.data) return <Loading />;
  return (
    <>
      <Table
        caption={t('guilds')}
        head={[t('name'), t('id'), t('owner'), t('roles'), t('created')]}
        empty={t('empty')}
        rows={list.data.items.length}
      >
        {list.data.items.map((g) => (
          <tr key={g.id}>
            <td>
              <Link to={`directory/${encodeURIComponent(g.id)}`}>{g.name}</Link>
            </td>
            <td class="mono">{g.id}</td>
            <td class="mono">{g.user_id}</td>
            <td>{g.roles.length}</td>
            <td>{formatTime(g.created_at)}</td>
          </tr>
        ))}
      </Table>
      <Pager
        page={list.data.meta.page}
        pageTotal={list.data.meta.page_total}
        total={list.data.meta.total}
        onPage={setPage}
      />
    </>
  );
}

function CreateGuild() {
  const [name, setName] = useState('');
  const [owner, setOwner] = useState('');
  const [topic, setTopic] = useState('');
  const [everyone, setEveryone] = useState(DEFAULT_EVERYONE_PERMISSIONS);
  const [local, setLocal] = useState<LocalErrors>({});
  const create = useAction(async () => {
    const errors: Record<string, string> = {};
    if (name.trim() === '') errors.name = t('required');
    if (owner.trim() === '') errors.user_id = t('required');
    setLocal(errors);
    if (Object.keys(errors).length > 0) return;
    const res = await api.post<{ guild: GuildView }>('/admin/api/guild/create', {
      name: name.trim(),
      user_id: owner.trim(),
      ...(topic.trim() !== '' ? { topic: topic.trim() } : {}),
      everyone_permissions: everyone,
    });
    navigate(`directory/${encodeURIComponent(res.guild.id)}`);
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
      <h2>{t('newGuild')}</h2>
      <div class="form-grid">
        <Field label={t('guildName')}>
          <input
            value={name}
            maxLength={100}
            aria-invalid={msg('name') ? true : undefined}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <FieldError message={msg('name')} />
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
        <Field label={t('topic')}>
          <input value={topic} maxLength={1000} onInput={(e) => setTopic(e.currentTarget.value)} />
          <FieldError message={msg('topic')} />
        </Field>
      </div>
      <PermissionChecks legend={t('everyone')} mask={everyone} onChange={setEveryone} />
      <FieldError message={msg('everyone_permissions')} />
      <FormError error={create.error} fields={['name', 'user_id', 'topic', 'everyone_permissions']} />
      <button type="submit" disabled={create.busy}>
        {t('createGuild')}
      </button>
    </form>
  );
}

interface UserForm {
  username: string;
  nickname: string;
  identify_num: string;
  avatar: string;
  online: boolean;
  status: number;
}

const EMPTY_USER: UserForm = {
  username: '',
  nickname: '',
  identify_num: '',
  avatar: '',
  online: false,
  status: 0,
};

const USER_FIELDS = ['id', 'username', 'nickname', 'identify_num', 'avatar', 'status'];

/** Look a user up by id, then create or change it (user/upsert). */
function Users() {
  const [id, setId] = useState('');
  const [form, setForm] = useState<UserForm>(EMPTY_USER);
  const [found, setFound] = useState<{ id: string; user: UserView | null }>();
  const [saved, setSaved] = useState<string>();
  const [local, setLocal] = useState<LocalErrors>({});
  const load = useAction(async () => {
    setSaved(undefined);
    const wanted = id.trim();
    if (wanted === '') {
      setLocal({ id: t('required') });
      return;
    }
    setLocal({});
    try {
      const res = await api.get<{ user: UserView }>('/admin/api/user/view', { id: wanted });
      const u = res.user;
      setFound({ id: wanted, user: u });
      setForm({
        username: u.username,
        nickname: u.nickname ?? '',
        identify_num: u.identify_num,
        avatar: u.avatar,
        online: u.online,
        status: u.status,
      });
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) throw e;
      setFound({ id: wanted, user: null });
      setForm(EMPTY_USER);
    }
  });
  const save = useAction(async () => {
    if (!found) return;
    if (form.username.trim() === '') {
      setLocal({ username: t('required') });
      return;
    }
    setLocal({});
    const res = await api.post<{ user: UserView }>('/admin/api/user/upsert', {
      id: found.id,
      username: form.username.trim(),
      nickname: form.nickname,
      identify_num: form.identify_num.trim(),
      avatar: form.avatar.trim(),
      online: form.online,
      status: form.status,
    });
    setFound({ id: found.id, user: res.user });
    setSaved(found.id);
  });
  const msg = (f: string) => fieldMessage(f, save.error ?? load.error, local);
  return (
    <section class="panel" aria-labelledby="users-title">
      <h2 id="users-title">{t('users')}</h2>
      <p class="field-hint">{t('usersHint')}</p>
      <form
        class="inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void load.run();
        }}
      >
        <Field label={t('userId')}>
          <input
            class="mono"
            value={id}
            maxLength={64}
            aria-invalid={msg('id') ? true : undefined}
            onInput={(e) => setId(e.currentTarget.value)}
          />
          <FieldError message={msg('id')} />
        </Field>
        <button type="submit" class="secondary" disabled={load.busy}>
          {t('load')}
        </button>
      </form>
      <FormError error={load.error} fields={USER_FIELDS} />
      {found && (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save.run();
          }}
        >
          <Notice kind="info">
            {found.user ? t('loaded', { id: found.id }) : t('newUser')}
            {found.user?.bot && ` ${t('isBot')}`}
          </Notice>
          <div class="form-grid">
            <Field label={t('username')}>
              <input
                value={form.username}
                maxLength={64}
                aria-invalid={msg('username') ? true : undefined}
                onInput={(e) => setForm({ ...form, username: e.currentTarget.value })}
              />
              <FieldError message={msg('username')} />
            </Field>
            <Field label={t('nickname')}>
              <input
                value={form.nickname}
                maxLength={64}
                onInput={(e) => setForm({ ...form, nickname: e.currentTarget.value })}
              />
              <FieldError message={msg('nickname')} />
            </Field>
            <Field label={t('identifyNum')}>
              <input
                class="mono"
                inputMode="numeric"
                value={form.identify_num}
                maxLength={16}
                aria-invalid={msg('identify_num') ? true : undefined}
                onInput={(e) => setForm({ ...form, identify_num: e.currentTarget.value })}
              />
              <FieldError message={msg('identify_num')} />
            </Field>
            <Field label={t('avatar')}>
              <input
                type="url"
                value={form.avatar}
                maxLength={1024}
                onInput={(e) => setForm({ ...form, avatar: e.currentTarget.value })}
              />
              <FieldError message={msg('avatar')} />
            </Field>
            <Field label={t('status')}>
              <select
                value={String(form.status)}
                onChange={(e) => setForm({ ...form, status: Number(e.currentTarget.value) })}
              >
                <option value="0">{t('statusNormal')} (0)</option>
                <option value="1">{t('statusNormal')} (1)</option>
                <option value="10">{t('statusBanned')}</option>
              </select>
              <FieldError message={msg('status')} />
            </Field>
          </div>
          <label class="check">
            <input
              type="checkbox"
              checked={form.online}
              onChange={(e) => setForm({ ...form, online: e.currentTarget.checked })}
            />
            {t('online')}
          </label>
          <FormError error={save.error} fields={USER_FIELDS} />
          {saved && <Notice kind="ok">{t('userSaved', { id: saved })}</Notice>}
          <p>
            <button type="submit" disabled={save.busy}>
              {t('saveUser')}
            </button>
          </p>
        </form>
      )}
    </section>
  );
}

export default function Directory(_props: { params: Record<string, string> }) {
  return (
    <Page title={t('title')}>
      <h2>{t('guilds')}</h2>
      <GuildList />
      <CreateGuild />
      <Users />
    </Page>
  );
}
