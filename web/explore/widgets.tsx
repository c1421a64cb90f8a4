// The explorer's small parts: an API problem as a notice, skip links, copy buttons, the request
// behind a view, a section with a focusable heading, and the variable search.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, curlFor, getJson } from './api.js';
import { copyText } from './clipboard.js';
import { planName } from './gates.js';

export function Problem({ error }: { error: unknown }) {
  if (error instanceof ApiError) {
    const p = error.problem;
    return (
      <div class={`notice ${p.status === 403 ? 'warning' : 'error'}`} role="alert">
        <strong>{p.title ?? 'Request failed'}.</strong> {p.detail}{' '}
        {p.upgrade_url && <a href={p.upgrade_url}>See the {p.required_plan ? `${planName(p.required_plan)} ` : ''}plan</a>}
      </div>
    );
  }
  return (
    <div class="notice error" role="alert">
      {String(error instanceof Error ? error.message : error)}
    </div>
  );
}

/** A skip link: moves focus to a section's heading, so the next Tab continues from there. */
export function Skip({ to, children }: { to: string; children: ComponentChildren }) {
  return (
    <a
      class="skip"
      href={`#${to}`}
      onClick={(e) => {
        const target = document.getElementById(to);
        if (!target) return;
        e.preventDefault();
        target.focus();
      }}
    >
      {children}
    </a>
  );
}

/**
 * A copy button that says what happened: "Copied" (announced), or, when the browser refuses both
 * ways of copying, that the text is there to select by hand.
 */
export function CopyButton({ text, label, class: cls = 'secondary small' }: { text: string; label: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => setState('idle'), [text]);
  const copy = async () => {
    setState((await copyText(text)) ? 'copied' : 'failed');
    setTimeout(() => setState('idle'), 4000);
  };
  return (
    <>
      <button type="button" class={cls} onClick={copy}>
        {state === 'copied' ? 'Copied' : label}
      </button>
      <span role="status" class={state === 'failed' ? 'hint' : 'visually-hidden'} data-testid="copy-status">
        {state === 'copied'
          ? ' Copied to the clipboard.'
          : state === 'failed'
            ? ' This browser refused to copy; select the text and copy it by hand.'
            : ''}
      </span>
    </>
  );
}

export function Request({ path }: { path: string }) {
  const curl = curlFor(path);
  return (
    <details class="request">
      <summary>API request</summary>
      <pre tabIndex={0}>
        <code>{curl}</code>
      </pre>
      <CopyButton text={curl} label="Copy as curl" />
    </details>
  );
}

export function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  // The heading takes focus from a skip link (tabIndex -1: focusable by script, not a Tab stop).
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id} tabIndex={-1}>
        {title}
      </h2>
      {children}
    </section>
  );
}

export function VariablePicker({ value, onPick }: { value: string; onPick: (code: string) => void }) {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<{ api_name: string; census_code?: string | null; label: string }[]>([]);
  const [error, setError] = useState<unknown>();
  const search = async (e: Event) => {
    e.preventDefault();
    try {
      const r = await getJson<{ data: { api_name: string; census_code?: string | null; label: string }[] }>(
        `/v1/variables?search=${encodeURIComponent(q)}&limit=8`,
      );
      setHits(r.data);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="picker">
      <form onSubmit={search} class="inline">
        <label for="var-search">Variable (words, a table or a code such as B19013_001E)</label>
        <input
          id="var-search"
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
          placeholder="median household income"
        />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {error !== undefined && <Problem error={error} />}
      {hits.length > 0 && (
        <ul class="hits" aria-label="Matching variables">
          {hits.map((h) => (
            <li key={h.api_name}>
              <button type="button" class="link" onClick={() => (onPick(h.census_code ?? h.api_name), setHits([]))}>
                {h.label} <span class="mono">{h.census_code ?? h.api_name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <p class="hint">
        Showing <span class="mono">{value}</span>
      </p>
    </div>
  );
}
