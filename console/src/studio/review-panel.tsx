import { useId, useState } from 'preact/hooks';
import { api, type Role } from '../api.ts';
import { translator } from '../i18n.ts';
import { reviewStatusBadge, reviewStatusLabel, type TemplateView } from '../templates-model.ts';
import { Badge, Confirm, ErrorNote, Field, useAction } from '../ui/components.tsx';
import {
  consumptionText,
  parseConsumption,
  type ReviewAction,
  type ReviewState,
  reviewActions,
  reviewBody,
  reviewRules,
} from './review-model.ts';

const t = translator({
  'zh-CN': {
    title: '审核',
    status: '审核状态',
    banned: '封禁',
    yes: '已封禁',
    no: '未封禁',
    consumption: '消耗',
    submit: '提交审核',
    approve: '通过',
    reject: '拒绝',
    ban: '封禁',
    unban: '解除封禁',
    consumptionInput: '通过后每条消息的消耗',
    consumptionHint: '留空则使用服务器默认值（APPROVED_TEMPLATE_CONSUMPTION）；普通消息为 1。',
    consumptionBad: '请输入大于 0、不超过 1 的数字，或留空。',
    banTitle: '封禁这个模板？',
    banBody: '封禁后，使用它的消息都不能发送（TEMPLATE_BANNED），直到解除封禁。',
    rules: '规则',
  },
  'en-US': {
    title: 'Review',
    status: 'Review status',
    banned: 'Banned',
    yes: 'Banned',
    no: 'Not banned',
    consumption: 'Cost',
    submit: 'Submit for review',
    approve: 'Approve',
    reject: 'Reject',
    ban: 'Ban',
    unban: 'Unban',
    consumptionInput: 'Cost per message once approved',
    consumptionHint: "Empty: the server's default (APPROVED_TEMPLATE_CONSUMPTION); a normal message costs 1.",
    consumptionBad: 'A number above 0 and at most 1, or empty.',
    banTitle: 'Ban this template?',
    banBody: 'Once banned, messages that use it cannot be sent (TEMPLATE_BANNED) until it is unbanned.',
    rules: 'Rules',
  },
});

/**
 * A template's review state and the actions on it: submit for review (bots and operators), and
 * for operators approve (with the cost per message), reject, ban and unban. `onChanged` gets the
 * template as the server answers it after each action.
 */
export function ReviewPanel(props: {
  template: ReviewState;
  role: Role;
  onChanged: (model: TemplateView) => void;
}) {
  const { template: tpl, role } = props;
  const headingId = useId();
  const [consumption, setConsumption] = useState('');
  const [askBan, setAskBan] = useState(false);
  const parsed = parseConsumption(consumption);
  const actions = reviewActions(tpl, role);

  const act = useAction(async (action: ReviewAction) => {
    const answer =
      action === 'submit'
        ? await api.post<{ model: TemplateView }>('/admin/api/template/submit', { id: tpl.id })
        : await api.post<{ model: TemplateView }>(
            '/admin/api/template/review',
            reviewBody(tpl.id, action, parsed.ok ? parsed.value : undefined, tpl.version),
          );
    if (action === 'approve') setConsumption('');
    props.onChanged(answer.model);
  });

  return (
    <section class="panel review-panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('title')}</h2>
      <dl class="facts">
        <dt>{t('status')}</dt>
        <dd>
          <Badge status={reviewStatusBadge(tpl.status)} label={reviewStatusLabel(tpl.status)} />
        </dd>
        <dt>{t('banned')}</dt>
        <dd>
          <Badge status={tpl.banned ? 'banned' : 'not-banned'} label={tpl.banned ? t('yes') : t('no')} />
        </dd>
        <dt>{t('consumption')}</dt>
        <dd>{consumptionText(tpl.consumption)}</dd>
      </dl>

      {actions.includes('approve') && (
        <Field label={t('consumptionInput')} hint={parsed.ok ? t('consumptionHint') : t('consumptionBad')}>
          <input
            inputMode="decimal"
            value={consumption}
            aria-invalid={parsed.ok ? undefined : true}
            onInput={(e) => setConsumption(e.currentTarget.value)}
          />
        </Field>
      )}
      {actions.length > 0 && (
        <div class="actions">
          {actions.map((a) => (
            <button
              key={a}
              type="button"
              class={a === 'ban' ? 'danger' : a === 'submit' || a === 'approve' ? '' : 'secondary'}
              disabled={act.busy || (a === 'approve' && !parsed.ok)}
              onClick={() => (a === 'ban' ? setAskBan(true) : void act.run(a))}
            >
              {t(a)}
            </button>
          ))}
        </div>
      )}
      {act.error !== undefined && <ErrorNote error={act.error} />}

      <ul class="review-rules" aria-label={t('rules')}>
        {reviewRules(tpl).map((r) => (
          <li key={r.text} class={r.now ? 'rule-now' : 'muted'}>
            {r.text}
          </li>
        ))}
      </ul>

      <Confirm
        open={askBan}
        title={t('banTitle')}
        confirmLabel={t('ban')}
        danger
        onCancel={() => setAskBan(false)}
        onConfirm={() => {
          setAskBan(false);
          void act.run('ban');
        }}
      >
        <p>{t('banBody')}</p>
      </Confirm>
    </section>
  );
}
