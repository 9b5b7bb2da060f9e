import { lang, translator } from '../i18n.ts';
import {
  hasBits,
  type OverwriteMasks,
  type OverwriteState,
  overwriteState,
  PERMISSION_BITS,
  setOverwriteState,
  unnamedBits,
  withBits,
} from '../permissions.ts';

const t = translator({
  'zh-CN': {
    other: '另有未命名的权限位 {mask}，保持不变。',
    inherit: '继承',
    allow: '允许',
    deny: '拒绝',
  },
  'en-US': {
    other: 'Also holds unnamed bits {mask}, kept as they are.',
    inherit: 'Inherit',
    allow: 'Allow',
    deny: 'Deny',
  },
});

/** A role's mask as one named checkbox per documented bit; other bits are kept untouched. */
export function PermissionChecks(props: {
  legend: string;
  mask: number;
  onChange: (mask: number) => void;
  disabled?: boolean;
}) {
  const other = unnamedBits(props.mask);
  return (
    <fieldset class="perm-checks">
      <legend>{props.legend}</legend>
      <div class="perm-grid">
        {PERMISSION_BITS.map((b) => (
          <label class="check" key={b.key} title={b.hint[lang.value]}>
            <input
              type="checkbox"
              checked={hasBits(props.mask, b.value)}
              disabled={props.disabled}
              onChange={(e) => props.onChange(withBits(props.mask, b.value, e.currentTarget.checked))}
            />
            <span>
              {b.label[lang.value]} <span class="muted mono">({b.value})</span>
            </span>
          </label>
        ))}
      </div>
      {other !== 0 && <p class="field-hint">{t('other', { mask: other })}</p>}
    </fieldset>
  );
}

const STATES: readonly OverwriteState[] = ['inherit', 'allow', 'deny'];

/** One overwrite (role or user) as a choice per documented bit: inherit, allow or deny. */
export function OverwriteChoices(props: {
  masks: OverwriteMasks;
  onChange: (masks: OverwriteMasks) => void;
}) {
  const other = unnamedBits(props.masks.allow) !== 0 || unnamedBits(props.masks.deny) !== 0;
  return (
    <>
      <div class="perm-grid">
        {PERMISSION_BITS.map((b) => {
          const state = overwriteState(props.masks, b.value);
          return (
            <label class={`field ow-${state}`} key={b.key}>
              <span class="field-label">{b.label[lang.value]}</span>
              <select
                value={state}
                onChange={(e) =>
                  props.onChange(
                    setOverwriteState(props.masks, b.value, e.currentTarget.value as OverwriteState),
                  )
                }
              >
                {STATES.map((s) => (
                  <option key={s} value={s}>
                    {t(s)}
                  </option>
                ))}
              </select>
            </label>
          );
        })}
      </div>
      {other && (
        <p class="field-hint">
          {t('other', {
            mask: `allow ${unnamedBits(props.masks.allow)} / deny ${unnamedBits(props.masks.deny)}`,
          })}
        </p>
      )}
    </>
  );
}
