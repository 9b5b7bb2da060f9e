import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { isWebUrl } from '../bot-form.ts';
import { formatTime, translator } from '../i18n.ts';
import {
  type IntimacyForm,
  intimacyChanges,
  intimacyToForm,
  MAX_SCORE,
  MAX_SOCIAL_INFO,
} from '../intimacy-form.ts';
import type { IntimacyView } from '../ops-types.ts';
import { Link, navigate, route } from '../router.tsx';
import { BotPicker } from '../ui/bot-picker.tsx';
import { ErrorNote, Field, Loading, Notice, Page, useAction } from '../ui/components.tsx';
import { FieldError, FormError, fieldMessage, type LocalErrors } from '../ui/form-errors.tsx';
import { useLoad } from '../ui/use-load.ts';

const t = translator({
  'zh-CN': {
    title: '亲密度',
    lookup: '查询',
    userId: '用户 id',
    chooseBot: '请选择机器人',
    needUser: '请输入用户 id',
    record: '{user} 与机器人的亲密度',
    noRecord: '这个用户还没有记录：下面是机器人的默认值，保存后会创建记录。',
    lastModify: '最近修改 {time}',
    lastRead: '最近读取 {time}',
    never: '从未',
    score: '亲密度',
    scoreHint: '0 到 {max}',
    social: '社交信息',
    socialHint: '最多 {max} 个字符',
    image: '图片',
    noImages: '这个机器人没有图片：在机器人页面添加。',
    imageNone: '（未选）',
    save: '保存',
    saved: '已保存。',
    nothing: '没有修改。',
    editBot: '编辑机器人的图片和默认值',
    imageAlt: '图片 {id}',
  },
  'en-US': {
    title: 'Intimacy',
    lookup: 'Look up',
    userId: 'User id',
    chooseBot: 'Choose a bot',
    needUser: 'Type a user id',
    record: "{user}'s intimacy with the bot",
    noRecord: "This user has no record yet: these are the bot's defaults, and saving creates the record.",
    lastModify: 'Last changed {time}',
    lastRead: 'Last read {time}',
    never: 'never',
    score: 'Score',
    scoreHint: '0 to {max}',
    social: 'Social info',
    socialHint: 'At most {max} characters',
    image: 'Image',
    noImages: 'This bot has no images: add some on the bot page.',
    imageNone: '(none chosen)',
    save: 'Save',
    saved: 'Saved.',
    nothing: 'Nothing changed.',
    editBot: "Edit the bot's images and defaults",
    imageAlt: 'Image {id}',
  },
});

const FIELDS = ['score', 'social_info', 'img_id'];

function RecordEditor(props: {
  botId: string;
  userId: string;
  view: IntimacyView;
  justSaved: boolean;
  onSaved: () => void;
}) {
  const { view } = props;
  const initial = intimacyToForm(view);
  const [form, setForm] = useState<IntimacyForm>(initial);
  const [local, setLocal] = useState<LocalErrors>({});
  const [result, setResult] = useState<'saved' | 'nothing' | null>(props.justSaved ? 'saved' : null);
  const save = useAction(async () => {
    setResult(null);
    const checked = intimacyChanges(initial, form);
    if (!checked.ok) {
      setLocal(checked.errors);
      return;
    }
    setLocal({});
    if (Object.keys(checked.changes).length === 0) {
      setResult('nothing');
      return;
    }
    await api.post('/admin/api/intimacy/update', {
      bot_id: props.botId,
      user_id: props.userId,
      ...checked.changes,
    });
    props.onSaved();
  });
  const msg = (f: string) => fieldMessage(f, save.error, local);
  const times = `${t('lastModify', { time: view.last_modify ? formatTime(view.last_modify) : t('never') })} · ${t(
    'lastRead',
    { time: view.last_read ? formatTime(view.last_read) : t('never') },
  )}`;
  return (
    <form
      class="panel"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h2>{t('record', { user: props.userId })}</h2>
      <p class="muted">{times}</p>
      {view.last_modify === 0 && <Notice kind="info">{t('noRecord')}</Notice>}
      <div class="form-grid">
        <Field label={t('score')} hint={t('scoreHint', { max: MAX_SCORE })}>
          <input
            type="number"
            min={0}
            max={MAX_SCORE}
            step={1}
            inputMode="numeric"
            value={form.score}
            aria-invalid={msg('score') ? true : undefined}
            onInput={(e) => setForm({ ...form, score: e.currentTarget.value })}
          />
          <FieldError message={msg('score')} />
        </Field>
      </div>
      <Field label={t('social')} hint={t('socialHint', { max: MAX_SOCIAL_INFO })}>
        <textarea
          class="plain"
          value={form.social_info}
          rows={3}
          aria-invalid={msg('social_info') ? true : undefined}
          onInput={(e) => setForm({ ...form, social_info: e.currentTarget.value })}
        />
        <FieldError message={msg('social_info')} />
      </Field>
      <fieldset>
        <legend>{t('image')}</legend>
        {view.img_list.length === 0 ? (
          <p class="muted">{t('noImages')}</p>
        ) : (
          <div class="image-choices">
            {form.img_id === '' && <p class="muted">{t('imageNone')}</p>}
            {view.img_list.map((img) => (
              <label class="image-choice" key={img.id}>
                <input
                  type="radio"
                  name="img_id"
                  value={img.id}
                  checked={form.img_id === img.id}
                  onChange={() => setForm({ ...form, img_id: img.id })}
                />
                {isWebUrl(img.url) ? (
                  <img
                    class="thumb"
                    src={img.url}
                    alt={t('imageAlt', { id: img.id })}
                    referrerpolicy="no-referrer"
                  />
                ) : (
                  <span class="thumb thumb-empty" />
                )}
                <span class="mono">{img.id}</span>
              </label>
            ))}
          </div>
        )}
        <FieldError message={msg('img_id')} />
      </fieldset>
      <FormError error={save.error} fields={FIELDS} />
      {result === 'saved' && <Notice kind="ok">{t('saved')}</Notice>}
      {result === 'nothing' && <Notice kind="info">{t('nothing')}</Notice>}
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          {t('save')}
        </button>
        <Link to={`bots/${encodeURIComponent(props.botId)}`}>{t('editBot')}</Link>
      </div>
    </form>
  );
}

function Lookup(props: { botId: string; userId: string }) {
  const [saved, setSaved] = useState(false);
  const loaded = useLoad(
    () => api.get<IntimacyView>('/admin/api/intimacy/view', { bot_id: props.botId, user_id: props.userId }),
    [props.botId, props.userId],
  );
  if (loaded.error) return <ErrorNote error={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading />;
  // Keyed by the record's time: the answer after a save starts a fresh form from the stored record.
  return (
    <RecordEditor
      key={`${props.botId}/${props.userId}/${loaded.data.last_modify}`}
      botId={props.botId}
      userId={props.userId}
      view={loaded.data}
      justSaved={saved}
      onSaved={() => {
        setSaved(true);
        loaded.reload();
      }}
    />
  );
}

export default function Intimacy(_props: { params: Record<string, string> }) {
  const query = route.value.query;
  const asked = { bot: query.get('bot_id') ?? '', user: query.get('user_id') ?? '' };
  const [botId, setBotId] = useState(asked.bot);
  const [userId, setUserId] = useState(asked.user);
  const [local, setLocal] = useState<LocalErrors>({});
  return (
    <Page title={t('title')}>
      <form
        class="panel lookup-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const errors: Record<string, string> = {};
          if (botId === '') errors.bot_id = t('chooseBot');
          if (userId.trim() === '') errors.user_id = t('needUser');
          setLocal(errors);
          if (Object.keys(errors).length > 0) return;
          // Ids (not secrets) go into the address so the lookup survives a reload and can be linked.
          const qs = new URLSearchParams({ bot_id: botId, user_id: userId.trim() });
          navigate(`intimacy?${qs}`, true);
        }}
      >
        <div class="form-grid">
          <BotPicker value={botId} onChange={(id) => setBotId(id)} error={local.bot_id} />
          <Field label={t('userId')}>
            <input
              class="mono"
              value={userId}
              maxLength={64}
              aria-invalid={local.user_id ? true : undefined}
              onInput={(e) => setUserId(e.currentTarget.value)}
            />
            <FieldError message={local.user_id} />
          </Field>
        </div>
        <button type="submit">{t('lookup')}</button>
      </form>
      {asked.bot !== '' && asked.user !== '' && (
        <Lookup key={`${asked.bot}/${asked.user}`} botId={asked.bot} userId={asked.user} />
      )}
    </Page>
  );
}
