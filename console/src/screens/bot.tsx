import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  type BotBody,
  type BotForm,
  botToForm,
  formToBody,
  isWebUrl,
  keptImageRows,
  MAX_IMAGES,
  MAX_SCORE,
  newImageRow,
} from '../bot-form.ts';
import { formatTime, translator } from '../i18n.ts';
import type { BotView } from '../ops-types.ts';
import { Link, navigate } from '../router.tsx';
import {
  Badge,
  Confirm,
  ErrorNote,
  Field,
  Loading,
  Notice,
  Page,
  ShownOnce,
  useAction,
} from '../ui/components.tsx';
import { FieldError, FormError, fieldMessage, type LocalErrors } from '../ui/form-errors.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    newTitle: '新建机器人',
    botTitle: '机器人',
    back: '返回机器人列表',
    general: '基本信息',
    name: '名称',
    score: '默认亲密度',
    scoreHint: '0 到 {max}，没有记录的用户读到这个分数。',
    images: '亲密度图片',
    imagesHint: '用户的亲密度图片从这个列表中选；地址必须以 http:// 或 https:// 开头。',
    imageId: '图片 id',
    imageUrl: '图片地址',
    noPreview: '无预览',
    preview: '图片 {id} 的预览',
    remove: '移除',
    removeImage: '移除图片 {n}',
    addImage: '添加图片',
    defaultImage: '默认图片',
    isDefault: '设为默认',
    noDefaultImage: '无默认图片',
    imageN: '图片 {n}',
    delivery: '投递',
    sink: '投递方式',
    sinkStore: '存入 Herald（store）',
    sinkRelay: '转发到上游平台（relay）',
    relayUrl: '转发地址',
    relayUrlHint: '上游平台 API 的根地址，例如 https://www.kookapp.cn',
    upstreamToken: '上游令牌',
    tokenUnchanged: '（不变）',
    tokenNone: '（未设置）',
    tokenHint: '只写：保存后不会再显示。留空则保持不变。',
    tokenHintNew: '只写：保存后不会再显示。',
    clearToken: '删除已保存的上游令牌',
    rateCapacity: '速率：突发容量',
    ratePerSecond: '速率：每秒补充',
    rateHint: '留空使用服务的默认值。',
    create: '创建机器人',
    save: '保存',
    saved: '已保存。',
    created: '机器人 {name} 已创建。',
    botToken: '机器人令牌',
    openBot: '打开这个机器人',
    toPipes: '为它创建管道',
    enabled: '启用',
    disabled: '停用',
    enable: '启用',
    disable: '停用',
    enableTitle: '启用机器人 {name}？',
    enableBody: '它的令牌重新可用，管道重新接收消息。',
    disableTitle: '停用机器人 {name}？',
    disableBody:
      '它的 API 调用会被拒绝（403），管道不再接收消息，排队中的消息会以 BOT_UNAVAILABLE 失败。之后可以重新启用。',
    rotate: '更换令牌',
    rotateTitle: '更换 {name} 的令牌？',
    rotateBody: '旧令牌立即失效；用它的程序需要换上新令牌。新令牌只显示一次。',
    newToken: '新的机器人令牌',
    done: '我已复制',
    intimacy: '查询亲密度',
    meta: 'id {id} · 用户 id {user} · 创建于 {created} · 更新于 {updated}',
  },
  'en-US': {
    newTitle: 'New bot',
    botTitle: 'Bot',
    back: 'Back to bots',
    general: 'General',
    name: 'Name',
    score: 'Default intimacy score',
    scoreHint: '0 to {max}: what users without a record read.',
    images: 'Intimacy images',
    imagesHint: "A user's intimacy image is one of this list; addresses start with http:// or https://.",
    imageId: 'Image id',
    imageUrl: 'Image URL',
    noPreview: 'no preview',
    preview: 'Preview of image {id}',
    remove: 'Remove',
    removeImage: 'Remove image {n}',
    addImage: 'Add image',
    defaultImage: 'Default image',
    isDefault: 'Default',
    noDefaultImage: 'No default image',
    imageN: 'image {n}',
    delivery: 'Delivery',
    sink: 'Sink',
    sinkStore: "Keep in Herald's store (store)",
    sinkRelay: 'Relay to the upstream platform (relay)',
    relayUrl: 'Relay URL',
    relayUrlHint: "The upstream platform API's base address, e.g. https://www.kookapp.cn",
    upstreamToken: 'Upstream token',
    tokenUnchanged: '(unchanged)',
    tokenNone: '(not set)',
    tokenHint: 'Write-only: never shown again. Leave empty to keep it.',
    tokenHintNew: 'Write-only: never shown again.',
    clearToken: 'Remove the stored upstream token',
    rateCapacity: 'Rate: burst capacity',
    ratePerSecond: 'Rate: refill per second',
    rateHint: "Empty: the service's default.",
    create: 'Create bot',
    save: 'Save',
    saved: 'Saved.',
    created: 'Bot {name} was created.',
    botToken: 'Bot token',
    openBot: 'Open this bot',
    toPipes: 'Create a pipe for it',
    enabled: 'enabled',
    disabled: 'disabled',
    enable: 'Enable',
    disable: 'Disable',
    enableTitle: 'Enable bot {name}?',
    enableBody: 'Its token works again and its pipes accept messages again.',
    disableTitle: 'Disable bot {name}?',
    disableBody:
      'Its API calls are refused (403), its pipes stop accepting messages, and queued messages fail with BOT_UNAVAILABLE. You can enable it again later.',
    rotate: 'Rotate token',
    rotateTitle: "Rotate {name}'s token?",
    rotateBody:
      'The old token stops working at once; programs using it need the new one. The new token is shown only once.',
    newToken: 'New bot token',
    done: 'I have copied it',
    intimacy: 'Look up intimacy',
    meta: 'id {id} · user id {user} · created {created} · updated {updated}',
  },
});

/** The API fields the form draws a message at (any other error goes under the form). */
function shownFields(form: BotForm): string[] {
  const rows = keptImageRows(form.images).flatMap((_, i) => [`img_list[${i}].id`, `img_list[${i}].url`]);
  return [
    'name',
    'default_score',
    'img_list',
    'default_img_id',
    'sink',
    'relay_url',
    'upstream_token',
    'rate_capacity',
    'rate_per_second',
    ...rows,
  ];
}

function Thumb(props: { url: string; id: string }) {
  if (!isWebUrl(props.url)) return <span class="thumb thumb-empty">{t('noPreview')}</span>;
  return (
    <img
      class="thumb"
      src={props.url.trim()}
      alt={t('preview', { id: props.id })}
      loading="lazy"
      referrerpolicy="no-referrer"
    />
  );
}

/** The bot's fields, for create and edit alike. */
function BotFields(props: {
  form: BotForm;
  set: (f: BotForm) => void;
  local: LocalErrors;
  error: unknown;
  existing?: BotView;
}) {
  const { form, set, local, error, existing } = props;
  const msg = (field: string) => fieldMessage(field, error, local);
  const kept = keptImageRows(form.images);
  const setRow = (key: number, change: { id?: string; url?: string }) => {
    const row = form.images.find((r) => r.key === key);
    const renamesDefault =
      change.id !== undefined && row !== undefined && row.id === form.default_img_id && row.id !== '';
    set({
      ...form,
      images: form.images.map((r) => (r.key === key ? { ...r, ...change } : r)),
      // The default follows its image when the image's id is edited.
      default_img_id: renamesDefault ? change.id! : form.default_img_id,
    });
  };
  const tokenSet = existing?.upstream_token_set === true;
  return (
    <>
      <fieldset>
        <legend>{t('general')}</legend>
        <div class="form-grid">
          <Field label={t('name')}>
            <input
              value={form.name}
              maxLength={64}
              required
              aria-invalid={msg('name') ? true : undefined}
              onInput={(e) => set({ ...form, name: e.currentTarget.value })}
            />
            <FieldError message={msg('name')} />
          </Field>
          <Field label={t('score')} hint={t('scoreHint', { max: MAX_SCORE })}>
            <input
              type="number"
              min={0}
              max={MAX_SCORE}
              step={1}
              inputMode="numeric"
              value={form.default_score}
              aria-invalid={msg('default_score') ? true : undefined}
              onInput={(e) => set({ ...form, default_score: e.currentTarget.value })}
            />
            <FieldError message={msg('default_score')} />
          </Field>
        </div>
      </fieldset>

      <fieldset>
        <legend>{t('images')}</legend>
        <p class="field-hint">{t('imagesHint')}</p>
        <FieldError message={msg('img_list')} />
        <ul class="image-rows">
          {form.images.map((row, j) => {
            const i = kept.indexOf(j);
            const idField = `img_list[${i}].id`;
            const urlField = `img_list[${i}].url`;
            const idMsg = i >= 0 ? msg(idField) : undefined;
            const urlMsg = i >= 0 ? msg(urlField) : undefined;
            return (
              <li key={row.key} class="image-row">
                <Thumb url={row.url} id={row.id} />
                <Field label={t('imageId')}>
                  <input
                    class="mono"
                    value={row.id}
                    maxLength={64}
                    aria-invalid={idMsg ? true : undefined}
                    onInput={(e) => setRow(row.key, { id: e.currentTarget.value })}
                  />
                  <FieldError message={idMsg} />
                </Field>
                <Field label={t('imageUrl')}>
                  <input
                    type="url"
                    value={row.url}
                    maxLength={1024}
                    placeholder="https://"
                    aria-invalid={urlMsg ? true : undefined}
                    onInput={(e) => setRow(row.key, { url: e.currentTarget.value })}
                  />
                  <FieldError message={urlMsg} />
                </Field>
                <div class="image-row-tools">
                  <label class="check">
                    <input
                      type="radio"
                      name="default_img"
                      checked={row.id !== '' && row.id === form.default_img_id}
                      disabled={row.id.trim() === ''}
                      onChange={() => set({ ...form, default_img_id: row.id })}
                    />
                    {t('isDefault')}
                  </label>
                  <button
                    type="button"
                    class="secondary"
                    aria-label={t('removeImage', { n: j + 1 })}
                    onClick={() =>
                      set({
                        ...form,
                        images: form.images.filter((r) => r.key !== row.key),
                        default_img_id: row.id === form.default_img_id ? '' : form.default_img_id,
                      })
                    }
                  >
                    {t('remove')}
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
        <div class="actions">
          <button
            type="button"
            class="secondary"
            disabled={form.images.length >= MAX_IMAGES}
            onClick={() => set({ ...form, images: [...form.images, newImageRow()] })}
          >
            {t('addImage')}
          </button>
          <label class="check">
            <input
              type="radio"
              name="default_img"
              checked={form.default_img_id === ''}
              onChange={() => set({ ...form, default_img_id: '' })}
            />
            {t('noDefaultImage')}
          </label>
        </div>
        <FieldError message={msg('default_img_id')} />
      </fieldset>

      <fieldset>
        <legend>{t('delivery')}</legend>
        <div class="form-grid">
          <Field label={t('sink')}>
            <select
              value={form.sink}
              onChange={(e) => set({ ...form, sink: e.currentTarget.value === 'relay' ? 'relay' : 'store' })}
            >
              <option value="store">{t('sinkStore')}</option>
              <option value="relay">{t('sinkRelay')}</option>
            </select>
            <FieldError message={msg('sink')} />
          </Field>
          {(form.sink === 'relay' || form.relay_url !== '' || tokenSet) && (
            <>
              <Field label={t('relayUrl')} hint={t('relayUrlHint')}>
                <input
                  type="url"
                  value={form.relay_url}
                  maxLength={1024}
                  placeholder="https://"
                  aria-invalid={msg('relay_url') ? true : undefined}
                  onInput={(e) => set({ ...form, relay_url: e.currentTarget.value })}
                />
                <FieldError message={msg('relay_url')} />
              </Field>
              <Field label={t('upstreamToken')} hint={existing ? t('tokenHint') : t('tokenHintNew')}>
                <input
                  type="password"
                  autoComplete="new-password"
                  spellcheck={false}
                  value={form.upstream_token}
                  maxLength={512}
                  disabled={form.clear_upstream_token}
                  placeholder={tokenSet ? t('tokenUnchanged') : t('tokenNone')}
                  aria-invalid={msg('upstream_token') ? true : undefined}
                  onInput={(e) => set({ ...form, upstream_token: e.currentTarget.value })}
                />
                <FieldError message={msg('upstream_token')} />
              </Field>
              {tokenSet && (
                <label class="check">
                  <input
                    type="checkbox"
                    checked={form.clear_upstream_token}
                    onChange={(e) =>
                      set({ ...form, clear_upstream_token: e.currentTarget.checked, upstream_token: '' })
                    }
                  />
                  {t('clearToken')}
                </label>
              )}
            </>
          )}
        </div>
        <div class="form-grid">
          <Field label={t('rateCapacity')} hint={t('rateHint')}>
            <input
              type="number"
              min={1}
              step={1}
              inputMode="numeric"
              value={form.rate_capacity}
              aria-invalid={msg('rate_capacity') ? true : undefined}
              onInput={(e) => set({ ...form, rate_capacity: e.currentTarget.value })}
            />
            <FieldError message={msg('rate_capacity')} />
          </Field>
          <Field label={t('ratePerSecond')} hint={t('rateHint')}>
            <input
              type="number"
              min={0}
              step="any"
              inputMode="decimal"
              value={form.rate_per_second}
              aria-invalid={msg('rate_per_second') ? true : undefined}
              onInput={(e) => set({ ...form, rate_per_second: e.currentTarget.value })}
            />
            <FieldError message={msg('rate_per_second')} />
          </Field>
        </div>
      </fieldset>
    </>
  );
}

/** Checks the form, then sends it; `local` holds what the form found itself. */
function useBotSubmit(send: (body: BotBody) => Promise<void>) {
  const [local, setLocal] = useState<LocalErrors>({});
  const action = useAction(async (form: BotForm, existing?: BotView) => {
    const result = formToBody(form, existing);
    if (!result.ok) {
      setLocal(result.errors);
      return;
    }
    setLocal({});
    await send(result.body);
  });
  return { local, action };
}

function CreateBot() {
  const [form, setForm] = useState<BotForm>(() => botToForm());
  const [created, setCreated] = useState<{ bot: BotView; token: string }>();
  const { local, action } = useBotSubmit(async (body) => {
    setCreated(await api.post<{ bot: BotView; token: string }>('/admin/api/bot/create', body));
  });
  if (created) {
    return (
      <Page title={t('newTitle')}>
        <Notice kind="ok">{t('created', { name: created.bot.name })}</Notice>
        <ShownOnce label={t('botToken')} value={created.token} />
        <div class="actions">
          <button
            type="button"
            onClick={() => {
              // The token is dropped from memory when the page is left.
              setCreated(undefined);
              navigate(`bots/${encodeURIComponent(created.bot.id)}`);
            }}
          >
            {t('openBot')}
          </button>
          <Link to="pipes" class="button secondary">
            {t('toPipes')}
          </Link>
        </div>
      </Page>
    );
  }
  return (
    <Page
      title={t('newTitle')}
      actions={
        <Link to="bots" class="button secondary">
          {t('back')}
        </Link>
      }
    >
      <form
        class="panel"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(form);
        }}
      >
        <BotFields form={form} set={setForm} local={local} error={action.error} />
        <FormError error={action.error} fields={shownFields(form)} />
        <button type="submit" disabled={action.busy}>
          {t('create')}
        </button>
      </form>
    </Page>
  );
}

function EditBot(props: { bot: BotView; onChanged: (bot: BotView) => void }) {
  const { bot } = props;
  const [form, setForm] = useState<BotForm>(() => botToForm(bot));
  const [saved, setSaved] = useState(false);
  const [ask, setAsk] = useState<'toggle' | 'rotate' | null>(null);
  const [token, setToken] = useState<string>();
  const { local, action } = useBotSubmit(async (body) => {
    const res = await api.post<{ bot: BotView }>('/admin/api/bot/update', body);
    setForm(botToForm(res.bot));
    setSaved(true);
    props.onChanged(res.bot);
  });
  const toggle = useAction(async () => {
    const res = await api.post<{ bot: BotView }>('/admin/api/bot/update', {
      id: bot.id,
      enabled: !bot.enabled,
    });
    props.onChanged(res.bot);
  });
  const rotate = useAction(async () => {
    const res = await api.post<{ token: string }>('/admin/api/bot/rotate-token', { id: bot.id });
    setToken(res.token);
  });
  return (
    <Page
      title={bot.name}
      actions={
        <>
          <Badge
            status={bot.enabled ? 'enabled' : 'disabled'}
            label={bot.enabled ? t('enabled') : t('disabled')}
          />
          <Link to={`intimacy?bot_id=${encodeURIComponent(bot.id)}`} class="button secondary">
            {t('intimacy')}
          </Link>
          <button type="button" class="secondary" onClick={() => setAsk('rotate')} disabled={rotate.busy}>
            {t('rotate')}
          </button>
          <button
            type="button"
            class={bot.enabled ? 'danger' : ''}
            onClick={() => setAsk('toggle')}
            disabled={toggle.busy}
          >
            {bot.enabled ? t('disable') : t('enable')}
          </button>
        </>
      }
    >
      <p class="muted">
        <Link to="bots">{t('back')}</Link> ·{' '}
        {t('meta', {
          id: bot.id,
          user: bot.user_id,
          created: formatTime(bot.created_at),
          updated: formatTime(bot.updated_at),
        })}
      </p>
      {toggle.error !== undefined && <ErrorNote error={toggle.error} />}
      {rotate.error !== undefined && <ErrorNote error={rotate.error} />}
      {token !== undefined && (
        <div>
          <ShownOnce label={t('newToken')} value={token} />
          <button type="button" class="secondary" onClick={() => setToken(undefined)}>
            {t('done')}
          </button>
        </div>
      )}
      <form
        class="panel"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          void action.run(form, bot);
        }}
      >
        <BotFields
          form={form}
          set={(f) => {
            setSaved(false);
            setForm(f);
          }}
          local={local}
          error={action.error}
          existing={bot}
        />
        <FormError error={action.error} fields={shownFields(form)} />
        {saved && <Notice kind="ok">{t('saved')}</Notice>}
        <button type="submit" disabled={action.busy}>
          {t('save')}
        </button>
      </form>
      <Confirm
        open={ask === 'toggle'}
        title={t(bot.enabled ? 'disableTitle' : 'enableTitle', { name: bot.name })}
        confirmLabel={bot.enabled ? t('disable') : t('enable')}
        danger={bot.enabled}
        onCancel={() => setAsk(null)}
        onConfirm={() => {
          setAsk(null);
          void toggle.run();
        }}
      >
        <p>{bot.enabled ? t('disableBody') : t('enableBody')}</p>
      </Confirm>
      <Confirm
        open={ask === 'rotate'}
        title={t('rotateTitle', { name: bot.name })}
        confirmLabel={t('rotate')}
        danger
        onCancel={() => setAsk(null)}
        onConfirm={() => {
          setAsk(null);
          void rotate.run();
        }}
      >
        <p>{t('rotateBody')}</p>
      </Confirm>
    </Page>
  );
}

function LoadBot(props: { id: string }) {
  const loaded = useLoad(
    () => api.get<{ bot: BotView }>('/admin/api/bot/view', { id: props.id }),
    [props.id],
  );
  const [bot, setBot] = useState<BotView>();
  const shown = bot?.id === props.id ? bot : loaded.data?.bot;
  if (loaded.error) {
    return (
      <Page title={t('botTitle')}>
        <ErrorNote error={loaded.error} onRetry={loaded.reload} />
        <Link to="bots">{t('back')}</Link>
      </Page>
    );
  }
  if (!shown) return <Loading />;
  return <EditBot key={shown.id} bot={shown} onChanged={setBot} />;
}

export default function BotScreen(props: { params: Record<string, string> }) {
  const id = props.params.id ?? '';
  return id === 'new' ? <CreateBot /> : <LoadBot id={id} />;
}
