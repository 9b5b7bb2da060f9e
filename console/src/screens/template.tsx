import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { MAX_TITLE_LENGTH } from '../../../src/domain/templates/constants.ts';
import { ApiError, api } from '../api.ts';
import { CodeEditor, languageOf, type Marker } from '../editor/index.ts';
import { translator } from '../i18n.ts';
import { Link, navigate, route, setLeaveGuard } from '../router.tsx';
import { CapturesPanel } from '../studio/captures.tsx';
import { LimitWarnings, PreviewError, PreviewSource, type Source } from '../studio/preview-parts.tsx';
import { createPreviewRunner, type PreviewOutcome } from '../studio/preview-runner.ts';
import { markerOf, warningMarkers } from '../studio/render-errors.ts';
import { lockedForReview } from '../studio/review-model.ts';
import { ReviewPanel } from '../studio/review-panel.tsx';
import { sessionBotId, studioRole } from '../studio/studio-session.ts';
import {
  type ChannelOption,
  changedFields,
  type Draft,
  draftOf,
  NEW_TEMPLATE,
  parseTestData,
  testDataFromCapture,
} from '../studio/template-model.ts';
import '../studio/studio.css';
import { MSGTYPES, msgtypeLabel, type SavedTemplate, type TemplateView } from '../templates-model.ts';
import { BotPicker } from '../ui/bot-picker.tsx';
import { ErrorNote, Field, Loading, Notice, Page, useAction } from '../ui/components.tsx';
import { DeliveryWatch } from '../ui/delivery-watch.tsx';
import { FieldError } from '../ui/form-errors.tsx';
import { useLoad } from '../ui/use-load.ts';
import type { RenderedMessage } from '../views/message-view.tsx';
import { MessageView } from '../views/message-view.tsx';
import { RenderWarnings } from '../views/render-warnings.tsx';

const t = translator({
  'zh-CN': {
    newTitle: '新建模板',
    back: '全部模板',
    chooseBot: '为哪个机器人创建模板？',
    noBot: '先选择一个机器人。',
    title: '标题',
    titleRequired: '请填写标题。',
    msgtype: '消息格式',
    template: '模板',
    templateHint: 'Twig 模板：{{ data.字段 }} 读取输入，Ctrl+空格 补全。',
    testData: '测试数据（JSON）',
    testDataHint: '模板中的 data；与模板一起保存。',
    testDataInvalid: '测试数据不是合法的 JSON（第 {line} 行第 {column} 列）：{detail}',
    testChannel: '测试频道',
    testChannelHint: '预览中的 PLATFORM 函数按这个频道和它的服务器回答；“发送到测试频道”发往这里。',
    noChannel: '（不指定频道）',
    unknownChannel: '{id}（不在机器人的服务器中）',
    channelsFailed: '无法读取机器人的频道：',
    save: '保存',
    create: '创建模板',
    saving: '正在保存…',
    saved: '已保存',
    unsaved: '有未保存的修改',
    savedWarnings: '已保存，但用测试数据渲染时发现问题：',
    inReview: '模板正在审核中，不能修改（仍可以发送）。',
    banned: '模板已被封禁，不能发送。',
    preview: '预览',
    rendering: '正在渲染…',
    noPreview: '还没有预览。',
    testDataBlocks: '测试数据修正后才会渲染预览。',
    sendTest: '发送到测试频道',
    sendHint: '把当前编辑器中的模板和测试数据通过机器人的队列真实发送（计入机器人的限额）。',
    sendNeedsChannel: '先选择测试频道。',
    openDelivery: '查看投递',
    leave: '有未保存的修改，确定离开吗？',
  },
  'en-US': {
    newTitle: 'New template',
    back: 'All templates',
    chooseBot: 'Which bot is the template for?',
    noBot: 'Choose a bot first.',
    title: 'Title',
    titleRequired: 'A title is required.',
    msgtype: 'Message format',
    template: 'Template',
    templateHint: 'A Twig template: {{ data.field }} reads the input; Ctrl+Space completes.',
    testData: 'Test data (JSON)',
    testDataHint: "The template's data; saved with the template.",
    testDataInvalid: 'The test data is not valid JSON (line {line}, column {column}): {detail}',
    testChannel: 'Test channel',
    testChannelHint:
      "The preview's PLATFORM functions answer for this channel and its server; “Send to test channel” sends here.",
    noChannel: '(no channel)',
    unknownChannel: "{id} (not in the bot's servers)",
    channelsFailed: "The bot's channels could not be read:",
    save: 'Save',
    create: 'Create the template',
    saving: 'Saving…',
    saved: 'Saved',
    unsaved: 'Unsaved changes',
    savedWarnings: 'Saved, but rendering it with the test data found problems:',
    inReview: 'The template is in review and cannot be changed (it still sends).',
    banned: 'The template is banned and cannot send.',
    preview: 'Preview',
    rendering: 'Rendering…',
    noPreview: 'No preview yet.',
    testDataBlocks: 'The preview renders again once the test data is fixed.',
    sendTest: 'Send to test channel',
    sendHint:
      "Sends the template and test data in the editor for real, through the bot's queue (it counts against the bot's limit).",
    sendNeedsChannel: 'Choose a test channel first.',
    openDelivery: 'Open the delivery',
    leave: 'There are unsaved changes. Leave anyway?',
  },
});

/**
 * A template just created on `templates/new`, handed to its own page (`templates/<id>`) with
 * the save's warnings, so that page neither loads it again nor loses them.
 */
const handoff = new Map<string, SavedTemplate>();

/** The template studio: `templates/:id` edits a template, `templates/new?bot_id=` creates one. */
export default function TemplateScreen(props: { params: Record<string, string> }) {
  const id = props.params.id;
  if (id === undefined || id === '') return <NewTemplate />;
  return <ExistingTemplate key={id} id={id} />;
}

function NewTemplate() {
  const own = sessionBotId();
  const [botId, setBotId] = useState(own ?? route.value.query.get('bot_id') ?? '');
  if (botId === '') {
    return (
      <Page title={t('newTitle')} actions={<Link to="templates">{t('back')}</Link>}>
        <section class="panel">
          <p>{t('chooseBot')}</p>
          <BotPicker value={botId} onChange={(v) => setBotId(v)} />
        </section>
      </Page>
    );
  }
  return (
    <Studio
      botId={botId}
      template={null}
      initial={NEW_TEMPLATE}
      onCreated={(saved) => {
        handoff.set(saved.model.id, saved);
        // Saved: nothing is lost by moving to its own page.
        setLeaveGuard(null);
        navigate(`templates/${encodeURIComponent(saved.model.id)}`, true);
      }}
    />
  );
}

function ExistingTemplate(props: { id: string }) {
  const [handed] = useState(() => {
    const saved = handoff.get(props.id);
    handoff.delete(props.id);
    return saved;
  });
  const loaded = useLoad(
    () =>
      handed
        ? Promise.resolve({ template: handed.model })
        : api.get<{ template: TemplateView }>('/admin/api/template/view', { id: props.id }),
    [props.id],
  );
  if (loaded.error) {
    return (
      <Page title={t('template')} actions={<Link to="templates">{t('back')}</Link>}>
        <ErrorNote error={loaded.error} onRetry={loaded.reload} />
      </Page>
    );
  }
  const template = loaded.data?.template;
  if (!template) return <Loading />;
  return (
    <Studio
      botId={template.bot_id}
      template={template}
      initial={draftOf(template)}
      initialWarnings={handed?.warnings}
    />
  );
}

interface RenderRequest {
  bot_id: string;
  content: string;
  msgtype: number;
  data: string;
  channel_id?: string;
}

interface PreviewState {
  /** The last message that rendered. */
  message: RenderedMessage | null;
  /** The newest answer was an error (the message above is then older than the editor's text). */
  error: unknown;
  busy: boolean;
}

function Studio(props: {
  botId: string;
  template: TemplateView | null;
  initial: Draft;
  initialWarnings?: SavedTemplate['warnings'];
  onCreated?: (saved: SavedTemplate) => void;
}) {
  const role = studioRole();
  const [model, setModel] = useState(props.template);
  const [saved, setSaved] = useState<Draft | null>(props.template ? props.initial : null);
  const [draft, setDraft] = useState(props.initial);
  const [warnings, setWarnings] = useState<SavedTemplate['warnings']>(props.initialWarnings ?? []);
  const [titleError, setTitleError] = useState<string>();
  const [source, setSource] = useState<Source>({ kind: 'test' });
  const [preview, setPreview] = useState<PreviewState>({ message: null, error: undefined, busy: false });
  const [sent, setSent] = useState<string[]>([]);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setDraft((d) => ({ ...d, [k]: v }));

  const locked = model !== null && lockedForReview(model);
  const changes = saved ? changedFields(saved, draft) : null;
  const dirty = changes === null || Object.keys(changes).length > 0;

  const testData = useMemo(() => parseTestData(draft.test_data), [draft.test_data]);
  // Completion keeps the last test data that parsed while the JSON is being edited.
  const lastData = useRef<unknown>(undefined);
  if (testData.ok) lastData.current = testData.value;
  const testDataMarkers = useMemo<Marker[]>(
    () =>
      testData.ok
        ? []
        : [{ line: testData.line, column: testData.column, message: testData.message, severity: 'error' }],
    [testData],
  );

  const runner = useMemo(
    () =>
      createPreviewRunner<RenderRequest, RenderedMessage>({
        render: (request) => api.post<RenderedMessage>('/admin/api/template/render', request),
        onOutcome: (o: PreviewOutcome<RenderRequest, RenderedMessage>) =>
          setPreview((p) =>
            o.ok ? { ...p, message: o.result, error: undefined } : { ...p, error: o.error },
          ),
        onBusy: (busy) => setPreview((p) => (p.busy === busy ? p : { ...p, busy })),
      }),
    [],
  );
  useEffect(() => () => runner.dispose(), [runner]);

  const data = source.kind === 'capture' ? (source.capture.body ?? '') : draft.test_data;
  const blockedByTestData = source.kind === 'test' && !testData.ok;
  const first = useRef(true);
  useEffect(() => {
    if (blockedByTestData) return;
    const request: RenderRequest = {
      bot_id: props.botId,
      content: draft.content,
      msgtype: draft.msgtype,
      data,
      ...(draft.test_channel !== '' ? { channel_id: draft.test_channel } : {}),
    };
    if (first.current) runner.now(request);
    else runner.schedule(request);
    first.current = false;
  }, [props.botId, draft.content, draft.msgtype, data, draft.test_channel, blockedByTestData]);

  // An error marks the editor alone: the warnings then belong to an older render.
  const templateMarkers = useMemo<Marker[]>(() => {
    if (preview.error !== undefined) {
      const m = markerOf(preview.error);
      return m ? [m] : [];
    }
    return warningMarkers(preview.message);
  }, [preview.error, preview.message]);

  // Leaving would lose the edits: a reload or a closed tab makes the browser ask, and a move to
  // another console page asks here.
  useEffect(() => {
    if (!dirty) return;
    const ask = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = t('leave');
    };
    addEventListener('beforeunload', ask);
    setLeaveGuard(() => confirm(t('leave')));
    return () => {
      removeEventListener('beforeunload', ask);
      setLeaveGuard(null);
    };
  }, [dirty]);

  const save = useAction(async () => {
    if (draft.title.trim() === '') {
      setTitleError(t('titleRequired'));
      return;
    }
    setTitleError(undefined);
    if (!model) {
      const result = await api.post<SavedTemplate>('/admin/api/template/create', {
        bot_id: props.botId,
        ...draft,
      });
      props.onCreated?.(result);
      return;
    }
    const result = await api.post<SavedTemplate>('/admin/api/template/update', { id: model.id, ...changes });
    setModel(result.model);
    setSaved(draftOf(result.model));
    setWarnings(result.warnings);
  });

  const send = useAction(async () => {
    const r = await api.post<{ msg_id: string }>('/admin/api/template/send-test', {
      bot_id: props.botId,
      content: draft.content,
      msgtype: draft.msgtype,
      data,
      channel_id: draft.test_channel,
    });
    setSent((ids) => [r.msg_id, ...ids].slice(0, 3));
  });

  const title = model ? model.title : t('newTitle');
  return (
    <Page title={title} actions={<Link to="templates">{t('back')}</Link>}>
      <div class="studio">
        <div class="studio-edit">
          {locked && <Notice kind="warn">{t('inReview')}</Notice>}
          {model?.banned && <Notice kind="warn">{t('banned')}</Notice>}
          <div class="studio-meta">
            <Field label={t('title')}>
              <input
                value={draft.title}
                maxLength={MAX_TITLE_LENGTH}
                readOnly={locked}
                aria-invalid={titleError ? true : undefined}
                onInput={(e) => set('title', e.currentTarget.value)}
              />
              <FieldError message={titleError} />
            </Field>
            <Field label={t('msgtype')}>
              <select
                value={String(draft.msgtype)}
                disabled={locked}
                onChange={(e) => set('msgtype', Number(e.currentTarget.value))}
              >
                {MSGTYPES.map((m) => (
                  <option key={m} value={String(m)}>
                    {msgtypeLabel(m)}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <div class="field studio-template">
            <span class="field-label">{t('template')}</span>
            <CodeEditor
              value={draft.content}
              language={languageOf(draft.msgtype)}
              onChange={(v) => set('content', v)}
              markers={templateMarkers}
              completionData={lastData.current}
              label={t('template')}
              readOnly={locked}
            />
            <span class="field-hint">{t('templateHint')}</span>
          </div>
          <div class="field studio-test-data">
            <span class="field-label">{t('testData')}</span>
            <CodeEditor
              value={draft.test_data}
              language="json"
              onChange={(v) => set('test_data', v)}
              markers={testDataMarkers}
              label={t('testData')}
              readOnly={locked}
            />
            <span class="field-hint">{t('testDataHint')}</span>
            {!testData.ok && (
              <span class="field-error">
                {t('testDataInvalid', {
                  line: testData.line,
                  column: testData.column,
                  detail: testData.message,
                })}
              </span>
            )}
          </div>
          <ChannelSelect
            botId={props.botId}
            value={draft.test_channel}
            disabled={locked}
            onChange={(v) => set('test_channel', v)}
          />
          <div class="actions studio-save">
            <button type="button" disabled={save.busy || locked || !dirty} onClick={() => void save.run()}>
              {save.busy ? t('saving') : model ? t('save') : t('create')}
            </button>
            {model && <span class="muted">{dirty ? t('unsaved') : t('saved')}</span>}
          </div>
          {save.error !== undefined && <ErrorNote error={save.error} />}
          {warnings.length > 0 && (
            <div class="notice warn" role="status">
              <p>{t('savedWarnings')}</p>
              <ul>
                {warnings.map((w, i) => (
                  // Warnings have no id; their order is the answer's.
                  <li key={i}>
                    {w.message} ({w.code})
                  </li>
                ))}
              </ul>
            </div>
          )}
          {model && (
            <>
              <ReviewPanel template={model} role={role} onChanged={(m) => setModel(m)} />
              <CapturesPanel
                templateId={model.id}
                activeId={source.kind === 'capture' ? source.capture.id : undefined}
                onUse={(body) => {
                  set('test_data', testDataFromCapture(body));
                  setSource({ kind: 'test' });
                }}
                onRender={(capture) => setSource({ kind: 'capture', capture })}
              />
            </>
          )}
        </div>
        <div class="studio-preview">
          <section class="panel" aria-labelledby="studio-preview-title">
            <div class="section-head">
              <h2 id="studio-preview-title">{t('preview')}</h2>
              <span class="muted" aria-hidden={!preview.busy}>
                {preview.busy ? t('rendering') : ''}
              </span>
            </div>
            <PreviewSource source={source} onBack={() => setSource({ kind: 'test' })} />
            {blockedByTestData && <Notice kind="warn">{t('testDataBlocks')}</Notice>}
            <PreviewError error={preview.error} hasMessage={preview.message !== null} />
            {preview.message && preview.error === undefined && (
              <RenderWarnings
                warnings={preview.message.warnings}
                count={preview.message.warning_count}
                inEditor={true}
              />
            )}
            {preview.message && <LimitWarnings message={preview.message} />}
            <div class="studio-send">
              <div class="actions">
                <button
                  type="button"
                  class="secondary"
                  disabled={send.busy || draft.test_channel === '' || blockedByTestData}
                  onClick={() => void send.run()}
                >
                  {t('sendTest')}
                </button>
                <span class="muted">{draft.test_channel === '' ? t('sendNeedsChannel') : t('sendHint')}</span>
              </div>
              {send.error !== undefined && <ErrorNote error={send.error} />}
              {sent.map((id) => (
                <DeliveryWatch key={id} msgId={id} />
              ))}
            </div>
            {preview.message ? (
              <div class={preview.error !== undefined ? 'studio-drawn studio-stale' : 'studio-drawn'}>
                <MessageView message={preview.message} />
              </div>
            ) : (
              preview.error === undefined && !blockedByTestData && <p class="muted">{t('noPreview')}</p>
            )}
          </section>
        </div>
      </div>
    </Page>
  );
}

function ChannelSelect(props: {
  botId: string;
  value: string;
  disabled?: boolean;
  onChange(id: string): void;
}) {
  const channels = useLoad(
    () => api.get<{ items: ChannelOption[] }>('/admin/api/template/channels', { bot_id: props.botId }),
    [props.botId],
  );
  const items = channels.data?.items ?? [];
  const guilds = new Map<string, { name: string; channels: ChannelOption[] }>();
  for (const c of items) {
    const g = guilds.get(c.guild_id) ?? { name: c.guild_name, channels: [] };
    g.channels.push(c);
    guilds.set(c.guild_id, g);
  }
  const known = props.value === '' || items.some((c) => c.id === props.value);
  return (
    <Field label={t('testChannel')} hint={t('testChannelHint')}>
      <select
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        <option value="">{t('noChannel')}</option>
        {!known && channels.data && (
          <option value={props.value}>{t('unknownChannel', { id: props.value })}</option>
        )}
        {[...guilds].map(([id, g]) => (
          <optgroup key={id} label={g.name}>
            {g.channels.map((c) => (
              <option key={c.id} value={c.id}>
                #{c.name}
              </option>
            ))}
          </optgroup>
        ))}
        {!known && !channels.data && <option value={props.value}>{props.value}</option>}
      </select>
      {channels.error && (
        <span class="field-error">
          {t('channelsFailed')} {channels.error.message}
          {channels.error instanceof ApiError && channels.error.code > 0 ? ` (${channels.error.code})` : ''}
        </span>
      )}
    </Field>
  );
}
