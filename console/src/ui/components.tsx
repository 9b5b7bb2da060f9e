import type { ComponentChildren, TargetedEvent } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { translator } from '../i18n.ts';

const t = translator({
  'zh-CN': {
    loading: '加载中…',
    copy: '复制',
    copied: '已复制',
    shownOnce: '只显示这一次：现在复制并妥善保存。',
    cancel: '取消',
    confirm: '确认',
    close: '关闭',
    retry: '重试',
    error: '出错了',
  },
  'en-US': {
    loading: 'Loading…',
    copy: 'Copy',
    copied: 'Copied',
    shownOnce: 'Shown only this once: copy it now and keep it safe.',
    cancel: 'Cancel',
    confirm: 'Confirm',
    close: 'Close',
    retry: 'Retry',
    error: 'Something went wrong',
  },
});

/** A screen: its title, optional actions beside it, and its body. */
export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title" tabIndex={-1}>
          {props.title}
        </h1>
        {props.actions && <div class="actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

export function Loading() {
  return (
    <p class="muted" role="status">
      {t('loading')}
    </p>
  );
}

/** An API or network error as the user should read it, with the code when there is one. */
export function ErrorNote(props: { error: unknown; onRetry?: () => void }) {
  const e = props.error;
  const message = e instanceof Error ? e.message : String(e);
  const code = e instanceof ApiError && e.code > 0 ? ` (${e.code})` : '';
  return (
    <div class="notice error" role="alert">
      <span>
        {message || t('error')}
        {code}
      </span>
      {props.onRetry && (
        <button type="button" class="link" onClick={props.onRetry}>
          {t('retry')}
        </button>
      )}
    </div>
  );
}

export function Notice(props: { kind?: 'ok' | 'warn' | 'info'; children: ComponentChildren }) {
  return (
    <div class={`notice ${props.kind ?? 'info'}`} role="status">
      {props.children}
    </div>
  );
}

type FieldProps = { label: string; hint?: string; children: ComponentChildren };

/** A labelled form control; the label wraps the control so it needs no id. */
export function Field(props: FieldProps) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the wrapped child
    <label class="field">
      <span class="field-label">{props.label}</span>
      {props.children}
      {props.hint && <span class="field-hint">{props.hint}</span>}
    </label>
  );
}

/** Copies text with the Clipboard API, falling back to selecting it for a manual copy. */
export function CopyButton(props: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(props.text);
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        } catch {
          // No clipboard (http on a remote host): the value stays selected for Ctrl+C.
        }
      }}
    >
      {done ? t('copied') : (props.label ?? t('copy'))}
    </button>
  );
}

/** A secret (a token, a pipe URL) shown once, with a copy button and the warning. */
export function ShownOnce(props: { label: string; value: string }) {
  return (
    <div class="notice warn shown-once">
      <strong>{props.label}</strong>
      <p>{t('shownOnce')}</p>
      <div class="copy-row">
        <input
          readOnly
          value={props.value}
          aria-label={props.label}
          onFocus={(e) => e.currentTarget.select()}
          class="mono"
        />
        <CopyButton text={props.value} />
      </div>
    </div>
  );
}

/** A modal confirmation (native <dialog>: focus kept inside, Escape cancels). */
export function Confirm(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel?: string;
  danger?: boolean;
  /** The confirm button is disabled (e.g. while what the dialog must say is still loading). */
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // A screen may hold several dialogs (one per table row): each needs its own title id.
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class="dialog" onCancel={props.onCancel} aria-labelledby={titleId}>
      <h2 id={titleId}>{props.title}</h2>
      <div>{props.children}</div>
      <div class="actions">
        <button type="button" class="secondary" onClick={props.onCancel}>
          {t('cancel')}
        </button>
        <button
          type="button"
          class={props.danger ? 'danger' : ''}
          disabled={props.confirmDisabled}
          onClick={props.onConfirm}
        >
          {props.confirmLabel ?? t('confirm')}
        </button>
      </div>
    </dialog>
  );
}

/** A delivery or entity status as a coloured badge. */
export function Badge(props: { status: string; label?: string }) {
  return <span class={`badge badge-${props.status}`}>{props.label ?? props.status}</span>;
}

/** A table with a caption for screen readers and a message when it is empty. */
export function Table(props: {
  caption: string;
  head: readonly string[];
  empty: string;
  children: ComponentChildren;
  rows: number;
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            {props.head.map((h) => (
              <th scope="col" key={h}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows === 0 ? (
            <tr>
              <td colSpan={props.head.length} class="muted">
                {props.empty}
              </td>
            </tr>
          ) : (
            props.children
          )}
        </tbody>
      </table>
    </div>
  );
}

/** Runs an async action from a button, disabling it meanwhile and keeping its error. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clearError: () => setError(undefined) };
}

export type InputEvent = TargetedEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>;
/** The value of a form control from its input/change event. */
export const inputValue = (e: InputEvent): string => e.currentTarget.value;
