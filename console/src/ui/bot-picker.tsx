import { api } from '../api.ts';
import { translator } from '../i18n.ts';
import type { BotView, Paged } from '../ops-types.ts';
import { ErrorNote, Field } from './components.tsx';
import { useLoad } from './use-load.ts';

const t = translator({
  'zh-CN': {
    bot: '机器人',
    choose: '选择机器人',
    disabled: '（已停用）',
    byId: '或输入机器人 id',
    more: '机器人较多，这里只列出按名称排序的前 {n} 个。',
  },
  'en-US': {
    bot: 'Bot',
    choose: 'Choose a bot',
    disabled: ' (disabled)',
    byId: 'or type a bot id',
    more: 'There are many bots: only the first {n} by name are listed.',
  },
});

/** The list's largest page: the API's page_size limit. */
const LIST_SIZE = 50;

/**
 * A bot chosen from the list (the first page by name), or typed by id when there are more
 * bots than one page holds. `onChange` gets the id and, when it came from the list, the bot.
 */
export function BotPicker(props: {
  value: string;
  onChange: (id: string, bot: BotView | undefined) => void;
  label?: string;
  /** The empty choice's text (default "Choose a bot"; a filter says "All bots"). */
  emptyLabel?: string;
  error?: string;
}) {
  const bots = useLoad(
    () => api.get<Paged<BotView>>('/admin/api/bot/list', { page_size: LIST_SIZE, sort: 'name' }),
    [],
  );
  const items = bots.data?.items ?? [];
  const more = (bots.data?.meta.total ?? 0) > items.length;
  const inList = items.some((b) => b.id === props.value);
  return (
    <div class="bot-picker">
      <Field label={props.label ?? t('bot')}>
        <select
          value={inList ? props.value : ''}
          aria-invalid={props.error ? true : undefined}
          onChange={(e) => {
            const id = e.currentTarget.value;
            props.onChange(
              id,
              items.find((b) => b.id === id),
            );
          }}
        >
          <option value="">{props.emptyLabel ?? t('choose')}</option>
          {items.map((b) => (
            <option key={b.id} value={b.id}>
              {b.name} · {b.id}
              {b.enabled ? '' : t('disabled')}
            </option>
          ))}
        </select>
        {props.error && <span class="field-error">{props.error}</span>}
      </Field>
      {more && (
        <Field label={t('byId')} hint={t('more', { n: LIST_SIZE })}>
          <input
            class="mono"
            inputMode="numeric"
            value={inList ? '' : props.value}
            onChange={(e) => props.onChange(e.currentTarget.value.trim(), undefined)}
          />
        </Field>
      )}
      {bots.error && <ErrorNote error={bots.error} onRetry={bots.reload} />}
    </div>
  );
}
