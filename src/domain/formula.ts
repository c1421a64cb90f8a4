// The small formula language catalog entries use to declare derived variables, e.g.
//   pct(B17001_002E, B17001_001E)          percent: proportion × 100, numerator ⊂ denominator
//   prop(a, b)                             proportion (0..1)
//   ratio(B19025_001E, B11001_001E)        ratio, numerator not a subset of the denominator
//   sum(B15003_022E, B15003_023E, ...)     sum of two or more terms
//   diff(a, b)                             difference a − b (MOE as for a sum)
//   product(a, b)                          product of two terms
//   pct(sum(a, b), c)                      calls nest freely; number literals (MOE 0) are allowed
// Terms are detailed-table estimate codes (ending in E). The MOE of a derived value follows
// src/domain/moe.ts (Census Bureau approximations, 90% confidence).

import { moeProduct, moeProportion, moeRatio, moeSum, type Estimate } from './moe.js';

export type Cell = {
  estimate: number | null;
  moe: number | null;
  estimate_annotation: string | null;
  moe_annotation: string | null;
};

export type FormulaFn = 'sum' | 'diff' | 'pct' | 'prop' | 'ratio' | 'product';

export type Formula = { kind: 'code'; code: string } | { kind: 'number'; value: number } | { kind: 'call'; fn: FormulaFn; args: Formula[] };

const ARITY: Record<FormulaFn, { min: number; max: number }> = {
  sum: { min: 2, max: Infinity },
  diff: { min: 2, max: 2 },
  pct: { min: 2, max: 2 },
  prop: { min: 2, max: 2 },
  ratio: { min: 2, max: 2 },
  product: { min: 2, max: 2 },
};

/** An estimate code of a Detailed Table (B…/C…, optional iteration letters such as B19013A). */
import { ESTIMATE_CODE } from './census-codes.js';
export { ESTIMATE_CODE };

export class FormulaError extends Error {
  constructor(
    readonly source: string,
    readonly position: number,
    message: string,
  ) {
    super(`bad formula "${source}" at position ${position}: ${message}`);
    this.name = 'FormulaError';
  }
}

type Token = { type: 'ident' | 'number' | '(' | ')' | ','; text: string; pos: number };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:([A-Za-z][A-Za-z0-9_]*)|(\d+(?:\.\d+)?)|([(),]))/y;
  let pos = 0;
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(src);
    if (!m) throw new FormulaError(src, pos, `unexpected character "${src.slice(pos).trimStart()[0]}"`);
    const start = m.index + m[0].length - (m[1] ?? m[2] ?? m[3] ?? '').length;
    if (m[1] !== undefined) tokens.push({ type: 'ident', text: m[1], pos: start });
    else if (m[2] !== undefined) tokens.push({ type: 'number', text: m[2], pos: start });
    else tokens.push({ type: m[3] as '(' | ')' | ',', text: m[3]!, pos: start });
    pos = re.lastIndex;
  }
  return tokens;
}

/** Parse a formula; throws FormulaError naming the position and the problem. */
export function parseFormula(src: string): Formula {
  const tokens = tokenize(src);
  let i = 0;
  const peek = (): Token | undefined => tokens[i];
  const expect = (type: Token['type']): Token => {
    const t = tokens[i];
    if (!t || t.type !== type) {
      throw new FormulaError(src, t?.pos ?? src.length, `expected "${type}" but found ${t ? `"${t.text}"` : 'end of formula'}`);
    }
    i++;
    return t;
  };

  const parseTerm = (): Formula => {
    const t = peek();
    if (!t) throw new FormulaError(src, src.length, 'unexpected end of formula');
    if (t.type === 'number') {
      i++;
      return { kind: 'number', value: Number(t.text) };
    }
    if (t.type !== 'ident') throw new FormulaError(src, t.pos, `unexpected "${t.text}"`);
    i++;
    if (peek()?.type === '(') {
      const fn = t.text.toLowerCase();
      if (!(fn in ARITY)) {
        throw new FormulaError(src, t.pos, `unknown function "${t.text}" (known: ${Object.keys(ARITY).join(', ')})`);
      }
      expect('(');
      const args: Formula[] = [parseTerm()];
      while (peek()?.type === ',') {
        i++;
        args.push(parseTerm());
      }
      expect(')');
      const { min, max } = ARITY[fn as FormulaFn];
      if (args.length < min || args.length > max) {
        const want = max === Infinity ? `at least ${min}` : min === max ? `${min}` : `${min}..${max}`;
        throw new FormulaError(src, t.pos, `${fn}() takes ${want} arguments, got ${args.length}`);
      }
      return { kind: 'call', fn: fn as FormulaFn, args };
    }
    const code = t.text.toUpperCase();
    if (!ESTIMATE_CODE.test(code)) {
      throw new FormulaError(src, t.pos, `"${t.text}" is not a detailed-table estimate code such as B17001_002E`);
    }
    return { kind: 'code', code };
  };

  const f = parseTerm();
  if (i < tokens.length) throw new FormulaError(src, tokens[i]!.pos, `unexpected "${tokens[i]!.text}" after the formula`);
  if (f.kind !== 'call') throw new FormulaError(src, 0, 'a formula must be a function call such as pct(a, b)');
  return f;
}

/** The estimate codes a formula needs, in first-use order, without duplicates. */
export function componentCodes(f: Formula): string[] {
  const out = new Set<string>();
  const walk = (g: Formula): void => {
    if (g.kind === 'code') out.add(g.code);
    else if (g.kind === 'call') g.args.forEach(walk);
  };
  walk(f);
  return [...out];
}

/** Canonical text of a formula (round-trips through parseFormula). */
export function formatFormula(f: Formula): string {
  if (f.kind === 'code') return f.code;
  if (f.kind === 'number') return String(f.value);
  return `${f.fn}(${f.args.map(formatFormula).join(', ')})`;
}

// Top- and bottom-coded medians are interval bounds, not point estimates: arithmetic on them
// would produce a number that means nothing, so they are treated like a missing component.
const UNUSABLE_ESTIMATE = new Set(['top_coded', 'bottom_coded']);

type Partial = { estimate: number | null; moe: number | null; failure: 'annotated' | 'not_computable' | null; moeMissing: boolean };

function evalNode(f: Formula, get: (code: string) => Cell): Partial {
  if (f.kind === 'number') return { estimate: f.value, moe: 0, failure: null, moeMissing: false };
  if (f.kind === 'code') {
    const c = get(f.code);
    if (c.estimate === null || (c.estimate_annotation !== null && UNUSABLE_ESTIMATE.has(c.estimate_annotation))) {
      return { estimate: null, moe: null, failure: 'annotated', moeMissing: true };
    }
    // A controlled estimate (MOE published as ***** / -555555555) has no sampling error: MOE 0.
    if (c.moe === null) {
      if (c.moe_annotation === 'controlled') return { estimate: c.estimate, moe: 0, failure: null, moeMissing: false };
      return { estimate: c.estimate, moe: null, failure: null, moeMissing: true };
    }
    // A published MOE with a symbol the Bureau does not explain (`*` in 2005–2009, on medians of
    // a handful of cases) is not a sampling error we can propagate.
    if (c.moe_annotation !== null) return { estimate: c.estimate, moe: null, failure: null, moeMissing: true };
    return { estimate: c.estimate, moe: c.moe, failure: null, moeMissing: false };
  }
  const args = f.args.map((a) => evalNode(a, get));
  const failed = args.find((a) => a.failure !== null);
  if (failed) return { estimate: null, moe: null, failure: failed.failure, moeMissing: true };
  const moeMissing = args.some((a) => a.moeMissing);
  const est = args.map((a) => a.estimate as number);
  const withMoe = (estimate: number, moe: () => number): Partial => ({
    estimate,
    moe: moeMissing ? null : moe(),
    failure: null,
    moeMissing,
  });
  const pair = (k: number): Estimate => ({ estimate: est[k]!, moe: args[k]!.moe ?? 0 });
  switch (f.fn) {
    case 'sum':
      return withMoe(
        est.reduce((s, x) => s + x, 0),
        () => moeSum(args.map((_, k) => pair(k))),
      );
    case 'diff':
      return withMoe(est[0]! - est[1]!, () => moeSum([pair(0), pair(1)]));
    case 'product':
      return withMoe(est[0]! * est[1]!, () => moeProduct(pair(0), pair(1)));
    case 'prop':
    case 'pct':
    case 'ratio': {
      if (est[1] === 0) return { estimate: null, moe: null, failure: 'not_computable', moeMissing: true };
      const scale = f.fn === 'pct' ? 100 : 1;
      const q = (est[0]! / est[1]!) * scale;
      if (f.fn === 'ratio') return withMoe(q, () => moeRatio(pair(0), pair(1)));
      return withMoe(q, () => moeProportion(pair(0), pair(1)).moe * scale);
    }
  }
}

/**
 * Evaluate a formula with the cells `get` returns for its component codes.
 * - a component with a null (or top/bottom-coded) estimate → null estimate, `derived_from_annotated`;
 * - a division by zero → null estimate, `not_computable`;
 * - a component MOE that is null because the estimate is `controlled` counts as 0 (no sampling
 *   error); any other null MOE leaves the estimate but nulls the MOE (`derived_from_annotated`).
 */
export function evaluateFormula(f: Formula, get: (code: string) => Cell): Cell {
  const r = evalNode(f, get);
  if (r.failure !== null || r.estimate === null || !Number.isFinite(r.estimate)) {
    const code = r.failure === 'annotated' ? 'derived_from_annotated' : 'not_computable';
    return { estimate: null, moe: null, estimate_annotation: code, moe_annotation: code };
  }
  if (r.moe === null || !Number.isFinite(r.moe)) {
    return { estimate: r.estimate, moe: null, estimate_annotation: null, moe_annotation: 'derived_from_annotated' };
  }
  return { estimate: r.estimate, moe: r.moe, estimate_annotation: null, moe_annotation: null };
}
