import { useState } from 'preact/hooks';
import { ApiError, api, session } from '../api.ts';
import { type GalleryTemplate, pickSample, renderBody, senderLabel, useBody } from '../gallery-model.ts';
import { translator } from '../i18n.ts';
import { Link, navigate } from '../router.tsx';
import { msgtypeLabel, type SavedTemplate } from '../templates-model.ts';
import { BotPicker } from '../ui/bot-picker.tsx';
import { ErrorNote, Field, Loading, Notice, Page, useAction } from '../ui/components.tsx';
import { useLoad } from '../ui/use-load.ts';
import { MessageView, type RenderedMessage } from '../views/message-view.tsx';

const t = translator({
  'zh-CN': {
    back: '返回模板库',
    sender: '发送方',
    event: '事件',
    format: '格式',
    sample: '示例数据',
    sampleSource: '来源：{source}',
    sampleData: '查看示例数据（JSON）',
    source: '模板源码',
    preview: '预览',
    botFor: '用哪个机器人预览和保存',
    chooseBot: '选择一个机器人后显示预览（PLATFORM 函数按它所在的服务器回答）。',
    use: '使用这个模板',
    useHint: '复制到机器人的模板中，当前示例作为测试数据，然后打开编辑器。',
    position: '第 {line} 行，第 {column} 列',
    noSamples: '这个模板没有示例数据。',
  },
  'en-US': {
    back: 'Back to the gallery',
    sender: 'Sender',
    event: 'Event',
    format: 'Format',
    sample: 'Sample payload',
    sampleSource: 'From: {source}',
    sampleData: 'Show the sample payload (JSON)',
    source: 'Template source',
    preview: 'Preview',
    botFor: 'Bot to preview and save with',
    chooseBot: 'Choose a bot to see the preview (PLATFORM functions answer for its servers).',
    use: 'Use this template',
    useHint: "Copies it into the bot's templates with this sample as its test data, then opens the editor.",
    position: 'line {line}, column {column}',
    noSamples: 'This template has no sample payload.',
  },
});

/** Where a render error points (TEMPLATE_COMPILE, TEMPLATE_RENDER, CARD_SYNTAX ... carry it). */
function errorAt(e: unknown): { line: number; column: number; excerpt?: string } | null {
  if (!(e instanceof ApiError) || typeof e.data !== 'object' || e.data === null) return null;
  const d = e.data as { line?: unknown; column?: unknown; excerpt?: unknown };
  if (typeof d.line !== 'number' || typeof d.column !== 'number') return null;
  return { line: d.line, column: d.column, excerpt: typeof d.excerpt === 'string' ? d.excerpt : undefined };
}

/**
 * One built-in template: its source, a sample chosen from its payloads, the message that sample
 * renders to (drawn as the platform shows it) and "Use this template", which copies it into a
 * bot's templates and opens the copy in the studio. An operator picks the bot; a bot session uses
 * its own.
 */
export default function GalleryItemScreen(props: { params: Record<string, string> }) {
  const id = props.params.id ?? '';
  const s = session.value;
  const isBot = s.state === 'signed-in' && s.role === 'bot';
  const ownBot = s.state === 'signed-in' ? (s.bot?.id ?? '') : '';
  const [pickedBot, setPickedBot] = useState('');
  const botId = isBot ? ownBot : pickedBot;
  const [sampleId, setSampleId] = useState<string | null>(null);

  const view = useLoad(() => api.get<{ template: GalleryTemplate }>('/admin/api/gallery/view', { id }), [id]);
  const tpl = view.data?.template;
  const sample = tpl ? pickSample(tpl, sampleId) : undefined;

  const rendered = useLoad<RenderedMessage | null>(
    () =>
      tpl && botId
        ? api.post<RenderedMessage>('/admin/api/template/render', renderBody(tpl, botId, sample))
        : Promise.resolve(null),
    [tpl, botId, sample?.id],
  );

  const use = useAction(async () => {
    const answer = await api.post<SavedTemplate>('/admin/api/gallery/use', useBody(id, botId, sample?.id));
    navigate(`templates/${encodeURIComponent(answer.model.id)}`);
  });

  if (view.error) {
    return (
      <Page title={id}>
        <ErrorNote error={view.error} onRetry={view.reload} />
        <Link to="gallery">{t('back')}</Link>
      </Page>
    );
  }
  if (!tpl) return <Loading />;
  const at = errorAt(rendered.error);

  return (
    <Page
      title={tpl.title}
      actions={
        <Link to="gallery" class="button secondary">
          {t('back')}
        </Link>
      }
    >
      <p>{tpl.description}</p>
      <dl class="facts">
        <dt>{t('sender')}</dt>
        <dd>{senderLabel(tpl.sender)}</dd>
        <dt>{t('event')}</dt>
        <dd>
          <code>{tpl.event}</code>
        </dd>
        <dt>{t('format')}</dt>
        <dd>{msgtypeLabel(tpl.msgtype)}</dd>
      </dl>

      <div class="panel gallery-use">
        {!isBot && <BotPicker value={pickedBot} label={t('botFor')} onChange={(b) => setPickedBot(b)} />}
        <div class="actions">
          <button type="button" disabled={!botId || use.busy} onClick={() => void use.run()}>
            {t('use')}
          </button>
        </div>
        <p class="field-hint">{t('useHint')}</p>
        {use.error !== undefined && <ErrorNote error={use.error} />}
      </div>

      <div class="gallery-columns">
        <section class="panel" aria-labelledby="gallery-source">
          <h2 id="gallery-source">{t('source')}</h2>
          {tpl.samples.length === 0 ? (
            <p class="muted">{t('noSamples')}</p>
          ) : (
            <Field
              label={t('sample')}
              hint={sample?.source ? t('sampleSource', { source: sample.source }) : undefined}
            >
              <select value={sample?.id ?? ''} onChange={(e) => setSampleId(e.currentTarget.value)}>
                {tpl.samples.map((x) => (
                  <option key={x.id} value={x.id}>
                    {x.title}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {sample && (
            <details>
              <summary>{t('sampleData')}</summary>
              <pre class="raw">{sample.data}</pre>
            </details>
          )}
          <pre class="raw gallery-source">{tpl.content}</pre>
        </section>
        <section
          class="panel"
          aria-labelledby="gallery-preview"
          aria-busy={rendered.loading ? true : undefined}
        >
          <h2 id="gallery-preview">{t('preview')}</h2>
          {!botId && <Notice kind="info">{t('chooseBot')}</Notice>}
          {rendered.error && (
            <>
              <ErrorNote error={rendered.error} onRetry={rendered.reload} />
              {at && (
                <div class="muted">
                  <p>{t('position', { line: at.line, column: at.column })}</p>
                  {at.excerpt !== undefined && <pre class="raw">{at.excerpt}</pre>}
                </div>
              )}
            </>
          )}
          {botId && !rendered.data && !rendered.error && <Loading />}
          {rendered.data && !rendered.error && <MessageView message={rendered.data} />}
        </section>
      </div>
    </Page>
  );
}
