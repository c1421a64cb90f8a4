// When does a census code mean the same thing in two vintages? The Bureau reuses line numbers:
// B25034_002E was "Built 2005 or later", then "Built 2010 or later", then "Built 2014 or later",
// then "Built 2020 or later". Joining such vintages into one series would be silently wrong, so
// a vintage whose label or universe differs *materially* from the reference vintage is not
// comparable unless the catalog maps it to another code or a reviewer accepted the wording.
//
// Not material (normalised away): letter case, whitespace, hyphens ("Foreign born" /
// "Foreign-born"), the colons Census Reporter puts on header lines, the API's leading
// "Estimate!!", the root "Total" and heading segments ending in "--" (Census Reporter omits
// them in some vintages, e.g. "Male" vs "Median age --!!Male"), the 2019 rewording "worked at
// home" → "worked from home", and the dollar year in "(in 2018 inflation-adjusted dollars)" — the
// Bureau restates every vintage in its own year's dollars by design, which is a property of the
// series, not a change of concept.
// A label whose segments are a trailing part of the other's is the same line with its parent
// chain missing from one shell, so it matches (compared segment by segment, never by substring).

function normalizeText(s: string): string {
  return s
    .toLowerCase()
    .replace(/\b(19|20)\d\d inflation-adjusted dollars\b/g, 'inflation-adjusted dollars')
    .replace(/\bwork(ed)? at home\b/g, 'work$1 from home')
    .replace(/-/g, ' ')
    .replace(/(\d)\.0\b/g, '$1')
    .replace(/[:,]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function segments(label: string): string[] {
  return label
    .replace(/^estimate!!/i, '')
    .split('!!')
    .filter((part) => !/--\s*$/.test(part))
    .map(normalizeText)
    .filter((p) => p.length > 0 && p !== 'total');
}

export function normalizeLabel(label: string): string {
  return segments(label).join('!!');
}

/** Heading texts ("Median age --") that one shell writes as a heading and another as a segment. */
function headings(label: string): Set<string> {
  return new Set(label.split('!!').filter((p) => /--\s*$/.test(p)).map((p) => normalizeText(p.replace(/--\s*$/, ''))));
}

/** Same meaning: identical segments, or one is the other with leading (parent) segments missing. */
export function sameLabel(a: string, b: string): boolean {
  const ha = headings(a);
  const hb = headings(b);
  const x = segments(a).filter((s) => !hb.has(s));
  const y = segments(b).filter((s) => !ha.has(s));
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  if (short.length === 0) return long.length === 0;
  const tail = long.slice(long.length - short.length);
  return short.every((s, i) => s === tail[i]);
}

export function normalizeUniverse(universe: string): string {
  return normalizeText(universe);
}

export interface Comparison {
  comparable: boolean;
  /** Why not, in words a reviewer can act on. */
  reason?: string;
}

/**
 * Compare one vintage's label/universe with the reference. A null label or universe (source has
 * presence only) cannot be compared and is treated as unverified-but-comparable by the caller.
 */
export function compareToReference(
  ref: { label: string; universe: string | null },
  v: { label: string | null; universe: string | null },
  acceptedLabels: ReadonlySet<string>,
  acceptedUniverses: ReadonlySet<string>,
): Comparison {
  if (v.label !== null) {
    if (!sameLabel(v.label, ref.label) && !acceptedLabels.has(normalizeLabel(v.label))) {
      return { comparable: false, reason: `label "${v.label}" differs from "${ref.label}"` };
    }
  }
  if (v.universe !== null && ref.universe !== null) {
    const u = normalizeUniverse(v.universe);
    if (u !== normalizeUniverse(ref.universe) && !acceptedUniverses.has(u)) {
      return { comparable: false, reason: `universe "${v.universe}" differs from "${ref.universe}"` };
    }
  }
  return { comparable: true };
}
