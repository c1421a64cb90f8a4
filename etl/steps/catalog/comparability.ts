// When does a census code mean the same thing in two vintages? The Bureau reuses line numbers:
// B25034_002E was "Built 2005 or later", then "Built 2010 or later", then "Built 2014 or later",
// then "Built 2020 or later". Joining such vintages into one series would be silently wrong, so
// a vintage whose label or universe differs *materially* from the reference vintage is not
// comparable unless the catalog maps it to another code.
//
// ONE rule, applied to every code of every variable alike (docs/catalog.md "Comparability"):
// two texts are the same when they are equal after
//   1. the fixed normalisations below, which remove typography and transcription noise:
//      letter case, whitespace, hyphens ("Foreign born" / "Foreign-born"), commas, the colons
//      Census Reporter puts on header lines, `2.0`/`2`, the API's leading "Estimate!!", the root
//      "Total" and heading segments ending in "--" (Census Reporter omits them in some vintages,
//      e.g. "Male" vs "Median age --!!Male"), and the dollar year in "(in 2018
//      inflation-adjusted dollars)" (the Bureau restates every vintage in its own year's dollars
//      by design, a property of the series, not a change of concept);
//   2. the reviewed equivalent wordings of catalog/equivalent_wordings.json (e.g. "Food Stamps"
//      = "Food Stamps/SNAP"): each is a judgement about the words, so it holds in every table,
//      every code and every variable, never for one entry only.
// A label whose segments are a trailing part of the other's is the same line with its parent
// chain missing from one shell, so it matches (compared segment by segment, never by substring).

/** A reviewed equivalence: these phrases name the same thing wherever they occur. */
export interface Wording {
  phrases: string[];
  reason: string;
}

function baseText(s: string): string {
  return s
    .toLowerCase()
    .replace(/\b(19|20)\d\d inflation-adjusted dollars\b/g, 'inflation-adjusted dollars')
    .replace(/-/g, ' ')
    .replace(/(\d)\.0\b/g, '$1')
    .replace(/[:,]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export interface Comparison {
  comparable: boolean;
  /** Why not, in words a reviewer can act on. */
  reason?: string;
}

export class Comparator {
  private readonly canonical = new Map<string, string>();
  private readonly pattern: RegExp | null;

  constructor(wordings: readonly Wording[] = []) {
    for (const w of wordings) {
      const canon = baseText(w.phrases[0]!);
      for (const p of w.phrases) this.canonical.set(baseText(p), canon);
    }
    // Longest phrase first, one pass: "food stamps/snap" is replaced whole, never re-matched.
    const alts = [...this.canonical.keys()].sort((a, b) => b.length - a.length).map(escapeRe);
    this.pattern = alts.length ? new RegExp(`(?<![a-z0-9])(?:${alts.join('|')})(?![a-z0-9])`, 'g') : null;
  }

  /** Normalised text of a label segment or a universe. */
  text(s: string): string {
    const t = baseText(s);
    return this.pattern ? t.replace(this.pattern, (m) => this.canonical.get(m) ?? m) : t;
  }

  /** The meaningful segments of a label (root "Total" and "… --" headings dropped). */
  segments(label: string): string[] {
    return label
      .replace(/^estimate!!/i, '')
      .split('!!')
      .filter((part) => !/--\s*$/.test(part))
      .map((p) => this.text(p))
      .filter((p) => p.length > 0 && p !== 'total');
  }

  normalizeLabel(label: string): string {
    return this.segments(label).join('!!');
  }

  /** Heading texts ("Median age --") that one shell writes as a heading and another as a segment. */
  private headings(label: string): Set<string> {
    return new Set(
      label
        .split('!!')
        .filter((p) => /--\s*$/.test(p))
        .map((p) => this.text(p.replace(/--\s*$/, ''))),
    );
  }

  /** Same meaning: identical segments, or one is the other with leading (parent) segments missing. */
  sameLabel(a: string, b: string): boolean {
    const ha = this.headings(a);
    const hb = this.headings(b);
    const x = this.segments(a).filter((s) => !hb.has(s));
    const y = this.segments(b).filter((s) => !ha.has(s));
    const [short, long] = x.length <= y.length ? [x, y] : [y, x];
    if (short.length === 0) return long.length === 0;
    const tail = long.slice(long.length - short.length);
    return short.every((s, i) => s === tail[i]);
  }

  sameUniverse(a: string, b: string): boolean {
    return this.text(a) === this.text(b);
  }

  /**
   * Compare one vintage's label/universe with the reference. A null label or universe (source
   * has presence only) cannot be compared and is treated as unverified-but-comparable by the caller.
   */
  compare(ref: { label: string; universe: string | null }, v: { label: string | null; universe: string | null }): Comparison {
    if (v.label !== null && !this.sameLabel(v.label, ref.label)) {
      return { comparable: false, reason: `label "${v.label}" differs from "${ref.label}"` };
    }
    if (v.universe !== null && ref.universe !== null && !this.sameUniverse(v.universe, ref.universe)) {
      return { comparable: false, reason: `universe "${v.universe}" differs from "${ref.universe}"` };
    }
    return { comparable: true };
  }
}

const plain = new Comparator();
/** The fixed normalisations only (no reviewed wordings). */
export const sameLabel = (a: string, b: string): boolean => plain.sameLabel(a, b);
/** Normalised universe under the fixed normalisations only (no reviewed wordings). */
export const normalizeUniverse = (universe: string): string => plain.text(universe);
/** Normalised label under the fixed normalisations only (no reviewed wordings). */
export const normalizeLabel = (label: string): string => plain.normalizeLabel(label);
