// A custom region: several places of one level chosen on the map (Shift+click, or Shift+Enter on
// the focused shape), in the table or from the series' Geography field, answered as one row by
// `geo=region(…)`: counts summed with the root-sum-of-squares MOE (the Bureau's approximation,
// which the API's notes say), percents from the summed parts, medians from the distribution, and
// a null with its reason and the members that caused it. Signed in, it can be saved by name to
// the account (`/v1/account/regions`) and used as `geo=region:<name>` anywhere.
import { useEffect, useState } from 'preact/hooks';
import { cvOf, fmt, fmtMoe, getJson, postJson, type Cell } from './api.js';
import { dollarsNote } from './dollars.js';
import { missingText, whyWords } from '../shared/missing.js';

export interface RegionAnswer {
  data: Cell[];
  meta: {
    notes?: string[];
    regions?: {
      geo_key: string;
      members: string[];
      missing: { vintage: number; reason: string; members: { geo_key: string; reason: string }[] }[];
    }[];
  };
}

/** The inline region of these members (the API sorts them; the order here is the reader's). */
export const regionSpec = (members: string[]) => `region(${members.join(',')})`;

export function regionPath(variable: string, members: string[], dataset: string, vintage: string): string {
  return `/v1/data?variables=${encodeURIComponent(variable)}&geo=${encodeURIComponent(regionSpec(members))}&dataset=${dataset}&vintage=${vintage}`;
}

/** The aggregate: estimate ± MOE with its CV, or why it is null and which members caused it. */
export function RegionFigure({ answer, nameOf }: { answer: RegionAnswer; nameOf: (key: string) => string }) {
  const cell = answer.data[0];
  if (!cell) return <p>The API returned no row for this region.</p>;
  const cv = cvOf(cell);
  const missing = answer.meta.regions?.[0]?.missing ?? [];
  return (
    <div data-testid="region-figure">
      <p class="region-name">{cell.geo_name}</p>
      {cell.estimate === null ? (
        <p class="notice warning" data-testid="region-null" data-code={cell.estimate_annotation?.code}>
          {missingText(cell)}
        </p>
      ) : (
        <p class="region-value" data-testid="region-value">
          <strong>{fmt(cell.estimate, cell.unit)}</strong>{' '}
          {cell.moe_numeric === null ? (
            <span data-testid="region-moe-null">({missingText(cell)})</span>
          ) : (
            <span data-testid="region-moe">{fmtMoe(cell.moe_numeric, cell.unit)} (90%)</span>
          )}
          {cv !== null && (
            <span class="hint">
              {' '}
              · CV {cv.toFixed(1)}%{cv > 30 ? ' — unreliable' : ''}
            </span>
          )}
          {dollarsNote(cell) && <span class="hint"> · {dollarsNote(cell)}</span>}
        </p>
      )}
      {missing.length > 0 && (
        <ul class="hint" aria-label="Members without a value" data-testid="region-missing">
          {missing.flatMap((m) =>
            m.members.map((x) => (
              <li key={`${m.vintage}-${x.geo_key}`}>
                {nameOf(x.geo_key)} <span class="mono">{x.geo_key}</span>:{' '}
                {whyWords({ code: x.reason, meaning: x.reason.replace(/_/g, ' ') })}
              </li>
            )),
          )}
        </ul>
      )}
      {(answer.meta.notes ?? []).length > 0 && (
        <ul class="hint notes" aria-label="How the region was computed" data-testid="region-notes">
          {answer.meta.notes!.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Saves the members under a name on the signed-in account (the API resolves and checks them). */
export function SaveRegion({ members }: { members: string[] }) {
  const [name, setName] = useState('');
  const [state, setState] = useState<{ ok: boolean; text: string }>();
  useEffect(() => setState(undefined), [members.join(',')]);
  return (
    <form
      class="inline"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          await postJson('/v1/account/regions', { name: name.trim(), members });
          setState({ ok: true, text: `Saved: use geo=region:${name.trim()} in any request of this account.` });
        } catch (err) {
          setState({ ok: false, text: err instanceof Error ? err.message : String(err) });
        }
      }}
    >
      <label for="region-name">Save as (letters, digits and dashes)</label>
      <input id="region-name" value={name} required onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <button type="submit" class="secondary small">
        Save region
      </button>
      <span role="status" class={state && !state.ok ? 'hint error-text' : 'hint'} data-testid="region-saved">
        {state?.text ?? ''}
      </span>
    </form>
  );
}

export function useRegion(ready: boolean, path: string | null) {
  const [answer, setAnswer] = useState<RegionAnswer>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    setAnswer(undefined);
    setError(undefined);
    if (!ready || !path) return;
    let live = true;
    getJson<RegionAnswer>(path).then(
      (r) => live && setAnswer(r),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [ready, path]);
  return { answer, error };
}
