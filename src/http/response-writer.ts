// Response bodies written straight from the route's zod schema, without the zod pass.
//
// fastify-type-provider-zod serializes a response as JSON.stringify(schema.parse(data)): a full
// validation pass that builds a stripped copy of the answer, then a second walk to stringify it
// (on all states × 10 variables, 520 cells, ~19% of the request's CPU). The writer compiled here
// walks the value once along the schema and emits the very bytes that pair would: known keys in
// the schema's order, unknown keys dropped (or, for loose objects, appended as zod appends them),
// and every check zod would make made too, so that a value zod refuses is never written. On any
// doubt — a value that would fail, a union no branch of which fits, a key whose place in the output
// JSON.stringify would change (integer-like keys) — it gives up and the original serializer runs,
// so what is sent, and every serialization error, stays exactly what it was.
// test/http/response-writer.test.ts compares the two on real envelopes and on generated values.
import { serializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** The value does not fit the schema, or the writer cannot vouch for the bytes: use the zod pass. */
class GiveUp extends Error {}
const GIVE_UP = new GiveUp();
const giveUp = (): never => {
  throw GIVE_UP;
};

/** A writer returns the JSON text of a value, or undefined where JSON.stringify would omit it. */
type Writer = (v: unknown) => string | undefined;

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: { check?: string; format?: string } } }>;
  check?: string;
  format?: string;
  coerce?: boolean;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  discriminator?: string;
  inclusive?: boolean;
}

const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
/** The values a literal or enum admits, as zod computed them (reverse mappings of numeric enums excluded). */
const valuesOf = (s: z.ZodType) => (s as unknown as { _zod: { values?: Set<unknown> } })._zod.values;

/** Keys that JSON.stringify would move ahead of the others (array indices). */
const INDEX_LIKE = /^(?:0|[1-9]\d*)$/;

/** The schema's own parse, stringified: exact for any subtree the writer does not specialise. */
function viaZod(schema: z.ZodType): Writer {
  return (v) => {
    const r = schema.safeParse(v);
    if (!r.success) giveUp();
    return JSON.stringify(r.data);
  };
}

function isSafeIntCheck(c: { _zod: { def: { check?: string; format?: string } } }): boolean {
  return c._zod.def.check === 'number_format' && c._zod.def.format === 'safeint';
}

function compile(schema: z.ZodType, seen: Map<z.ZodType, Writer>): Writer {
  const cached = seen.get(schema);
  if (cached) return cached;
  const w = build(schema, seen);
  seen.set(schema, w);
  return w;
}

function build(schema: z.ZodType, seen: Map<z.ZodType, Writer>): Writer {
  const def = defOf(schema);
  const checks = def.checks ?? [];
  if (def.coerce) return viaZod(schema);
  switch (def.type) {
    case 'string':
      if (checks.length > 0 || def.check) return viaZod(schema);
      return (v) => (typeof v === 'string' ? JSON.stringify(v) : giveUp());
    case 'number': {
      const safeInt = (def.check !== undefined && isSafeIntCheck({ _zod: { def } })) || (checks.length > 0 && checks.every(isSafeIntCheck));
      if (!safeInt && (checks.length > 0 || def.check)) return viaZod(schema);
      if (safeInt) return (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : giveUp());
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : giveUp());
    }
    case 'boolean':
      if (checks.length > 0) return viaZod(schema);
      return (v) => (v === true ? 'true' : v === false ? 'false' : giveUp());
    case 'literal':
    case 'enum': {
      const allowed = valuesOf(schema);
      if (checks.length > 0 || !allowed) return viaZod(schema);
      // Literals of other kinds (undefined, bigint) are left to zod.
      if (![...allowed].every((x) => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' || x === null))
        return viaZod(schema);
      return (v) => (allowed.has(v) && !(typeof v === 'number' && !Number.isFinite(v)) ? JSON.stringify(v) : giveUp());
    }
    case 'unknown':
    case 'any':
      if (checks.length > 0) return viaZod(schema);
      return (v) => JSON.stringify(v);
    case 'nullable': {
      if (checks.length > 0) return viaZod(schema);
      const inner = compile(def.innerType!, seen);
      return (v) => (v === null ? 'null' : inner(v));
    }
    case 'optional': {
      if (checks.length > 0) return viaZod(schema);
      const inner = compile(def.innerType!, seen);
      return (v) => (v === undefined ? undefined : inner(v));
    }
    case 'array': {
      if (checks.length > 0) return viaZod(schema);
      const el = compile(def.element!, seen);
      return (v) => {
        if (!Array.isArray(v)) return giveUp();
        if (v.length === 0) return '[]';
        let out = '[';
        for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (el(v[i]) ?? 'null');
        return out + ']';
      };
    }
    case 'union': {
      // Discriminated and exclusive unions choose differently from "first option that parses".
      if (checks.length > 0 || def.discriminator !== undefined || def.inclusive === false) return viaZod(schema);
      const options = def.options!.map((o) => compile(o, seen));
      // zod takes the first option that parses; every writer checks what its option's parse would.
      return (v) => {
        for (const o of options) {
          try {
            return o(v);
          } catch (e) {
            if (e !== GIVE_UP) throw e;
          }
        }
        return giveUp();
      };
    }
    case 'record': {
      if (checks.length > 0) return viaZod(schema);
      const k = defOf(def.keyType!);
      if (k.type !== 'string' || (k.checks ?? []).length > 0 || k.check) return viaZod(schema);
      const value = compile(def.valueType!, seen);
      return (v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return giveUp();
        // Records keep the input's own keys, so the output object orders them as the input does.
        if (Object.getOwnPropertySymbols(v).length > 0) return giveUp();
        let out = '{';
        let first = true;
        for (const key of Object.keys(v)) {
          if (key === '__proto__') return giveUp();
          const s = value((v as Record<string, unknown>)[key]);
          if (s === undefined) continue;
          out += (first ? '' : ',') + JSON.stringify(key) + ':' + s;
          first = false;
        }
        return out + '}';
      };
    }
    case 'object':
      return objectWriter(schema, def, seen);
    default:
      return viaZod(schema);
  }
}

function objectWriter(schema: z.ZodType, def: Def, seen: Map<z.ZodType, Writer>): Writer {
  if ((def.checks ?? []).length > 0) return viaZod(schema);
  const shape = def.shape!;
  if (Object.getOwnPropertySymbols(shape).length > 0) return viaZod(schema);
  const keys = Object.keys(shape);
  if (keys.some((k) => k === '__proto__' || INDEX_LIKE.test(k))) return viaZod(schema);
  const catchall = def.catchall ? defOf(def.catchall) : undefined;
  // Strip (no catchall) and loose (unknown catchall) are specialised; strict and typed catchalls go to zod.
  if (catchall && !(catchall.type === 'unknown' && (catchall.checks ?? []).length === 0)) return viaZod(schema);
  const loose = catchall !== undefined;
  const fields = keys.map((k) => ({ key: k, prefix: JSON.stringify(k) + ':', write: compile(shape[k]!, seen) }));
  const known = new Set(keys);
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return giveUp();
    const o = v as Record<string, unknown>;
    let out = '{';
    let first = true;
    for (const f of fields) {
      const s = f.write(o[f.key]);
      if (s === undefined) continue;
      out += (first ? '' : ',') + f.prefix + s;
      first = false;
    }
    if (loose) {
      // zod appends unknown keys after the shape's, in for...in order of the input.
      for (const key in o) {
        if (known.has(key) || key === '__proto__') continue;
        if (INDEX_LIKE.test(key)) return giveUp(); // JSON.stringify would put it first
        const s = o[key] === undefined ? undefined : JSON.stringify(o[key]);
        if (s === undefined) continue;
        out += (first ? '' : ',') + JSON.stringify(key) + ':' + s;
        first = false;
      }
    }
    return out + '}';
  };
}

/** The writer alone (tests): the JSON text, or an exception where it would give up. */
export function compileWriter(schema: z.ZodType): (data: unknown) => string | undefined {
  return compile(schema, new Map());
}

/**
 * `serializer(data)` for a route's response schema: the compiled writer, and `fallback` (the zod
 * pass + JSON.stringify, with its errors) whenever the writer gives up.
 */
export function compiledSerializer(schema: z.ZodType, fallback: (data: unknown) => string): (data: unknown) => string {
  const write = compile(schema, new Map());
  return (data) => {
    try {
      const s = write(data);
      if (s !== undefined) return s;
    } catch (e) {
      if (e !== GIVE_UP) throw e;
    }
    return fallback(data);
  };
}

/** Resolves a route's response schema as fastify-type-provider-zod does; undefined: not zod. */
function zodSchemaOf(maybe: unknown): z.ZodType | undefined {
  if (maybe instanceof z.ZodType) return maybe;
  const p = (maybe as { properties?: unknown } | undefined)?.properties;
  return p instanceof z.ZodType ? p : undefined;
}

/** fastify's serializer compiler: the compiled writer in front of fastify-type-provider-zod's own. */
export const writerSerializerCompiler: typeof serializerCompiler = (route) => {
  const fallback = serializerCompiler(route);
  const schema = zodSchemaOf(route.schema);
  return schema ? compiledSerializer(schema, fallback as (data: unknown) => string) : fallback;
};
