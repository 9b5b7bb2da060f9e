import { translator } from '../i18n.ts';
import type { RateForm } from '../pipe-model.ts';
import { Field } from './components.tsx';

const t = translator({
  'zh-CN': {
    legend: '速率限制',
    useDefault: '使用默认值（{capacity} 条突发，每秒 {perSecond} 条）',
    useDefaultPlain: '使用服务配置的默认值（PIPE_RATE_BURST、PIPE_RATE_PER_SECOND）',
    capacity: '突发容量（条）',
    capacityHint: '1 到 1,000,000 之间的整数',
    perSecond: '每秒补充（条）',
    perSecondHint: '0.01 到 1,000,000',
    bad: '请填写有效的值',
  },
  'en-US': {
    legend: 'Rate limit',
    useDefault: 'Use the default ({capacity} burst, {perSecond} per second)',
    useDefaultPlain: "Use the service's default (PIPE_RATE_BURST, PIPE_RATE_PER_SECOND)",
    capacity: 'Burst (messages)',
    capacityHint: 'A whole number from 1 to 1,000,000',
    perSecond: 'Refill per second (messages)',
    perSecondHint: 'From 0.01 to 1,000,000',
    bad: 'Enter a valid value',
  },
});

/** A pipe's rate limit: the configured default, or its own burst and refill. */
export function RateFields(props: {
  value: RateForm;
  /** The default in force, shown beside the choice; unknown before the pipe exists. */
  defaults?: { capacity: number; per_second: number };
  invalid?: 'capacity' | 'per_second';
  onChange: (next: RateForm) => void;
}) {
  const v = props.value;
  return (
    <fieldset class="rate-fields">
      <legend>{t('legend')}</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={!v.custom}
          onChange={(e) => props.onChange({ ...v, custom: !e.currentTarget.checked })}
        />
        <span>
          {props.defaults
            ? t('useDefault', { capacity: props.defaults.capacity, perSecond: props.defaults.per_second })
            : t('useDefaultPlain')}
        </span>
      </label>
      {v.custom && (
        <div class="form-grid">
          <Field label={t('capacity')} hint={props.invalid === 'capacity' ? t('bad') : t('capacityHint')}>
            <input
              type="number"
              min={1}
              max={1_000_000}
              step={1}
              required
              value={v.capacity}
              aria-invalid={props.invalid === 'capacity' ? true : undefined}
              onInput={(e) => props.onChange({ ...v, capacity: e.currentTarget.value })}
            />
          </Field>
          <Field label={t('perSecond')} hint={props.invalid === 'per_second' ? t('bad') : t('perSecondHint')}>
            <input
              type="number"
              min={0.01}
              max={1_000_000}
              step="any"
              required
              value={v.per_second}
              aria-invalid={props.invalid === 'per_second' ? true : undefined}
              onInput={(e) => props.onChange({ ...v, per_second: e.currentTarget.value })}
            />
          </Field>
        </div>
      )}
    </fieldset>
  );
}
