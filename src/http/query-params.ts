// Query-parameter building blocks: the string form a URL carries, read into typed values. An
// empty value (`?vintage=`) is absent, and the failures are the spec's error types (`int_parsing`,
// `float_parsing`, `bool_parsing`; 422). REST's verb schemas are built from these (verb-schemas.ts).
import { z } from 'zod';
import { pageShape } from '../verbs/paging.js';

function emptyToUndefined(v: unknown): unknown {
  return v === '' ? undefined : v;
}

/** An integer query parameter; `abc` and `1.5` give `int_parsing` (422). */
export function queryInt(opts: { min?: number; max?: number; description?: string } = {}) {
  let inner = z.int();
  if (opts.min !== undefined) inner = inner.min(opts.min);
  if (opts.max !== undefined) inner = inner.max(opts.max);
  const schema = z.preprocess((v, ctx) => {
    const s = emptyToUndefined(v);
    if (typeof s !== 'string') return s;
    if (!/^[+-]?\d+$/.test(s.trim())) {
      ctx.issues.push({ code: 'custom', message: 'Input should be a valid integer', input: v, params: { type: 'int_parsing' } });
      return z.NEVER;
    }
    return Number(s);
  }, inner);
  return opts.description ? schema.describe(opts.description) : schema;
}

/** A decimal number query parameter; `abc` gives `float_parsing` (422). */
export function queryFloat(opts: { min?: number; max?: number; description?: string } = {}) {
  let inner = z.number();
  if (opts.min !== undefined) inner = inner.min(opts.min);
  if (opts.max !== undefined) inner = inner.max(opts.max);
  const schema = z.preprocess((v, ctx) => {
    const s = emptyToUndefined(v);
    if (typeof s !== 'string') return s;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s.trim())) {
      ctx.issues.push({ code: 'custom', message: 'Input should be a valid number', input: v, params: { type: 'float_parsing' } });
      return z.NEVER;
    }
    return Number(s);
  }, inner);
  return opts.description ? schema.describe(opts.description) : schema;
}

/** `true`/`false` (also 1/0, yes/no); anything else gives `bool_parsing` (422). */
export function queryBool(description?: string) {
  const schema = z.preprocess((v, ctx) => {
    const s = emptyToUndefined(v);
    if (typeof s !== 'string') return s;
    const t = s.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(t)) return true;
    if (['false', '0', 'no'].includes(t)) return false;
    ctx.issues.push({
      code: 'custom',
      message: 'Input should be a valid boolean (true or false)',
      input: v,
      params: { type: 'bool_parsing' },
    });
    return z.NEVER;
  }, z.boolean());
  return description ? schema.describe(description) : schema;
}

/**
 * A comma-separated list (`a,b,c`); a repeated parameter (`?v=a&v=b`) is accepted too and the
 * two forms combine. Blank items are dropped.
 */
export function queryList(item: z.ZodType<string> = z.string(), opts: { min?: number; max?: number; description?: string } = {}) {
  let arr = z.array(item);
  if (opts.min !== undefined) arr = arr.min(opts.min);
  if (opts.max !== undefined) arr = arr.max(opts.max);
  const schema = z.preprocess((v) => {
    const s = emptyToUndefined(v);
    if (s === undefined) return undefined;
    const parts = ([] as unknown[]).concat(s).flatMap((x) => (typeof x === 'string' ? x.split(',') : [x]));
    const items = parts.map((x) => (typeof x === 'string' ? x.trim() : x)).filter((x) => x !== '');
    return items.length === 0 ? undefined : items;
  }, arr);
  return opts.description ? schema.describe(opts.description) : schema;
}

/** A plain string parameter where an empty value means absent. */
export function queryString(description?: string) {
  const schema = z.preprocess(emptyToUndefined, z.string());
  return description ? schema.describe(description) : schema;
}

/** `limit`/`offset` as documented in docs/api.md; the plan's maximum is applied by the verb. */
export const paginationQuery = {
  limit: queryInt({ min: 1, description: pageShape.limit.description }).optional(),
  offset: queryInt({ min: 0, description: pageShape.offset.description }).optional(),
};
