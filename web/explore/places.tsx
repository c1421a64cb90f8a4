// The map's parent area typed in words ("Texas", "Cook County", "Harris County, TX", "TX-35") and resolved
// the way the API resolves parent names: through /v1/geographies/{name}/children, whose
// `meta.parent` is the place the words name and whose 400 `ambiguous-geography-name` lists the
// `candidates`. Ambiguity is answered with a list of buttons (focus moves to the first, Tab and
// Enter pick); every outcome is announced in a status region.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, getJson } from './api.js';
import { formerNameWords, type FormerName } from '../shared/former-name.js';
import { placeTypeWords, withArticle } from '../shared/place-type.js';

export interface Place {
  /** `us` for the whole country, else a geography key (`state:48`, `county:48201`). */
  key: string;
  name: string;
  type: string;
}

export const US: Place = { key: 'us', name: 'United States', type: 'nation' };

const NATION = /^(the\s+)?(us|u\.s\.?(a\.?)?|usa|united\s+states(\s+of\s+america)?|america|nation|national|whole\s+country)$/i;

interface Candidate {
  key: string;
  name: string;
  type: string;
}

/**
 * The place `words` (or a key) name in `vintage`, as the API resolves a parent; `note` when the
 * words are a former name of it (`meta.former_name`: "Austin-Round Rock, TX" in 2017), in names.
 */
export async function resolvePlace(words: string, vintage: string): Promise<Place & { note?: string }> {
  const w = words.trim();
  if (NATION.test(w)) return US;
  // `tract` is a child type of every parent a map can sit in (state, county) and of metros and
  // districts, so the API resolves any of them without refusing the pair; one row is enough.
  const r = await getJson<{ meta: { parent: { geo_key: string; name: string; type: string }; former_name?: FormerName | null } }>(
    `/v1/geographies/${encodeURIComponent(w)}/children?type=tract&limit=1&vintage=${encodeURIComponent(vintage)}`,
  );
  const place = { key: r.meta.parent.geo_key, name: r.meta.parent.name, type: r.meta.parent.type };
  return r.meta.former_name ? { ...place, note: formerNameWords(r.meta.former_name) } : place;
}

export function PlacePicker({ value, vintage, onResolve }: { value: Place; vintage: string; onResolve: (p: Place) => void }) {
  const [words, setWords] = useState(value.key === 'us' ? '' : value.name);
  // Ambiguous words: the places they match (focus moves there). Unknown words: the closest
  // states and counties, offered beside the error (focus stays in the field).
  const [choices, setChoices] = useState<{ asked: string; candidates: Candidate[]; ambiguous: boolean }>();
  const [problem, setProblem] = useState<string>();
  const [status, setStatus] = useState('');
  // Said on screen, not only announced: the words were a former name of the place found.
  const [note, setNote] = useState<string>();
  const [busy, setBusy] = useState(false);
  const firstChoice = useRef<HTMLButtonElement>(null);
  useEffect(() => setWords(value.key === 'us' ? '' : value.name), [value.key, value.name]);
  useEffect(() => {
    if (choices?.ambiguous) firstChoice.current?.focus();
  }, [choices]);

  const accept = (p: Place & { note?: string }) => {
    setChoices(undefined);
    setProblem(undefined);
    setNote(p.note);
    if (!['nation', 'state', 'county', 'metro', 'cd'].includes(p.type)) {
      const msg = `“${p.name}” is ${withArticle(placeTypeWords(p.type))}; a map sits in the United States, a state, a county, a metro area or a congressional district.`;
      setProblem(msg);
      setStatus(msg);
      return;
    }
    setStatus(
      p.type === 'nation'
        ? 'Showing the United States.'
        : `Found ${p.name}, ${withArticle(placeTypeWords(p.type))}; the map shows its ${p.type === 'county' ? 'tracts' : 'counties'}.${p.note ? ` ${p.note}` : ''}`,
    );
    onResolve(p);
  };
  const resolve = async (text: string) => {
    if (!text.trim()) return accept(US);
    setBusy(true);
    setProblem(undefined);
    setChoices(undefined);
    setNote(undefined);
    try {
      accept(await resolvePlace(text, vintage));
    } catch (e) {
      const p = e instanceof ApiError ? e.problem : undefined;
      const candidates = Array.isArray(p?.candidates) ? (p.candidates as Candidate[]) : [];
      if (p?.status === 400 && String(p.type ?? '').endsWith('/ambiguous-geography-name') && candidates.length) {
        setChoices({ asked: text, candidates, ambiguous: true });
        setStatus(`“${text}” matches ${candidates.length} places; choose one.`);
      } else {
        const msg = p?.detail ?? (e instanceof Error ? e.message : String(e));
        setProblem(msg);
        setStatus(msg);
        if (candidates.length) setChoices({ asked: text, candidates, ambiguous: false });
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="place-picker">
      <form
        class="inline"
        role="search"
        aria-label="Map area"
        onSubmit={(e) => {
          e.preventDefault();
          void resolve(words);
        }}
      >
        <label for="within">Within (a state, county, metro or district in words)</label>
        <input
          id="within"
          value={words}
          placeholder="United States"
          autoComplete="off"
          aria-describedby={problem ? 'within-problem within-hint' : 'within-hint'}
          aria-invalid={problem ? 'true' : undefined}
          onInput={(e) => setWords((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="secondary" disabled={busy}>
          Show
        </button>
      </form>
      <p id="within-hint" class="hint">
        “Texas”, “Cook County”, “Harris County, TX”, “Austin-Round Rock, TX”, “TX-35”, or empty for the United States; resolved by the API
        as in <span class="mono">/v1/geographies/&#123;name&#125;/children</span>.
      </p>
      {note && (
        <p class="hint" data-testid="within-note">
          Found by a former name: {note}
        </p>
      )}
      {problem && (
        <p class="notice error" id="within-problem" data-testid="within-problem">
          {problem}
        </p>
      )}
      {choices && (
        <div class="choices" role="group" aria-labelledby="within-choices-title" data-testid="within-choices">
          <p id="within-choices-title">
            {choices.ambiguous ? `“${choices.asked}” matches ${choices.candidates.length} places. Which one?` : 'Closest names:'}
          </p>
          <ul>
            {choices.candidates.map((c, i) => (
              <li key={c.key}>
                <button type="button" class="secondary small" ref={i === 0 ? firstChoice : undefined} onClick={() => void resolve(c.key)}>
                  {c.name} <span class="mono">{c.key}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      <p role="status" class="visually-hidden" data-testid="within-status">
        {status}
      </p>
    </div>
  );
}
