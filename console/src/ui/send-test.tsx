import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { translator } from '../i18n.ts';
import { ErrorNote, useAction } from './components.tsx';
import { DeliveryWatch } from './delivery-watch.tsx';

const t = translator({
  'zh-CN': {
    send: '发送测试消息',
    hint: '使用绑定模板的 test_data（无模板时发送一段简短文字），走正常的投递流程。',
  },
  'en-US': {
    send: 'Send a test message',
    hint: "Sends the bound template's test_data (a short text for a plain pipe) through the normal delivery path.",
  },
});

/** "Send a test message" for a pipe (POST pipe/send-test), then the message's delivery, live. */
export function SendTest(props: { pipeId: string; disabled?: boolean }) {
  const [msgIds, setMsgIds] = useState<string[]>([]);
  const action = useAction(async () => {
    const { msg_id } = await api.post<{ msg_id: string }>('/admin/api/pipe/send-test', { id: props.pipeId });
    setMsgIds((ids) => [msg_id, ...ids].slice(0, 3));
  });
  return (
    <div class="send-test">
      <div class="actions">
        <button type="button" disabled={action.busy || props.disabled} onClick={() => void action.run()}>
          {t('send')}
        </button>
        <span class="muted">{t('hint')}</span>
      </div>
      {action.error !== undefined && <ErrorNote error={action.error} />}
      {msgIds.map((id) => (
        <DeliveryWatch key={id} msgId={id} />
      ))}
    </div>
  );
}
