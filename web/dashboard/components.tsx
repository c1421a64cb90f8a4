// Shared pieces: copy button, the show-once key panel, confirmation dialogs, notices.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard access can be refused (http on a non-localhost origin): fall back to selection.
      const ta = document.createElement('textarea');
      ta.value = text;
      document.body.append(ta);
      ta.select();
      document.execCommand('copy');
      ta.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 2000);
  };
  return (
    <button type="button" class="secondary" onClick={copy}>
      {done ? 'Copied' : label}
      <span class="visually-hidden" aria-live="polite">
        {done ? ' to the clipboard' : ''}
      </span>
    </button>
  );
}

/** The full key, once. Focus moves here so keyboard and screen-reader users find it at once. */
export function KeyReveal({
  created,
  onDismiss,
  title = 'Your new API key',
}: {
  created: { key: string; name: string };
  onDismiss: () => void;
  title?: string;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), [created.key]);
  return (
    <section class="reveal" aria-labelledby="reveal-title" tabIndex={-1} ref={ref} data-testid="key-reveal">
      <h2 id="reveal-title">
        {title}: “{created.name}”
      </h2>
      <p class="warning-text">
        <strong>Copy this key now. It will not be shown again</strong> — we store only a fingerprint of it. If you lose it, rotate the key
        to get a new one.
      </p>
      <div class="key-row">
        <label for="new-key" class="visually-hidden">
          Full API key
        </label>
        <input id="new-key" class="mono" readOnly value={created.key} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <button type="button" class="link" onClick={onDismiss}>
        I have stored the key — hide it
      </button>
    </section>
  );
}

export function Dialog({
  open,
  title,
  children,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" onClose={onClose} onCancel={onClose}>
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}

export function Notice({ kind, children }: { kind: 'info' | 'error' | 'success' | 'warning'; children: ComponentChildren }) {
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function PageTitle({ children }: { children: ComponentChildren }) {
  // The router moves focus to the page title on navigation (main.tsx).
  return (
    <h1 id="page-title" tabIndex={-1}>
      {children}
    </h1>
  );
}

/** Loads data for a page; `reload` refetches after a change. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[] = [],
): { data: T | undefined; error: string | undefined; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(undefined)),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [tick, ...deps]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}
