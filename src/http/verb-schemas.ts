// REST's view of an operation's one input schema (src/verbs/define-verb.ts). Every field of the
// verb's zod object becomes a query parameter, or a path parameter when the route's mapping says
// so, in the string form a URL carries: integers through queryInt (`int_parsing`), numbers through
// queryFloat (`float_parsing`), booleans through queryBool, strings with an empty value meaning
// absent, `string | string[]` lists given once or repeated, number tuples comma-separated. The
// constraints (min/max) are the verb's, so /openapi.json states what the verb enforces; the verb
// parses its input again, so no rule lives only here.
//
// The mapping table is where REST renders the operation: which field is a path parameter (and under
// what name), the REST wording of a description (markdown, links to other endpoints), a field not
// exposed over REST (`false`). Nothing else.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { queryBool, queryFloat, queryInt, queryString } from './query-params.js';

export interface RestField {
  /** The field is this path parameter (`/v1/variables/:api_name` carries `name`). */
  path?: string;
  /** The description in /openapi.json when REST words it differently from the verb. */
  describe?: string;
  /** Other query parameter names for the field (`lon` for `lng`), with their descriptions; two different values are a 400. */
  aliases?: Record<string, string>;
}

export type RestMapping<S extends z.ZodObject> = Partial<Record<Extract<keyof S['shape'], string>, RestField | false>>;

export interface RestSchemas {
  /** Absent when the verb takes nothing from the query string. */
  querystring: z.ZodObject | undefined;
  params: z.ZodObject | undefined;
  /** Where a field renamed by the path sits (`{ name: 'path → api_name' }`), for error placement. */
  fields: Record<string, string>;
  /** The verb's input from a request's parsed query and path parameters. */
  toInput(query: Record<string, unknown>, params: Record<string, unknown>): Record<string, unknown>;
}

type Wrapped = z.ZodType & { unwrap(): z.ZodType };

/** The schema under optional/default wrappers, and whether the field may be absent. */
function unwrapped(field: z.ZodType): { inner: z.ZodType; optional: boolean } {
  let inner = field;
  let optional = false;
  while (inner.def.type === 'optional' || inner.def.type === 'default') {
    optional = true;
    inner = (inner as Wrapped).unwrap();
  }
  return { inner, optional };
}

const bound = (n: number | null | undefined) => (n === null || n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? undefined : n);

/** A fresh string schema with the verb's length bounds (no transforms: the verb applies its own). */
function lengths(s: z.ZodString): z.ZodString | undefined {
  if (s.minLength === null && s.maxLength === null) return undefined;
  let out = z.string();
  if (s.minLength !== null) out = out.min(s.minLength);
  if (s.maxLength !== null) out = out.max(s.maxLength);
  return out;
}

/** `a,b,c` → a number tuple checked by the verb's own tuple schema. */
function queryTuple(tuple: z.ZodTuple, description: string | undefined) {
  const parts = queryString(description).transform((s) => s.split(',').map((x) => (x.trim() === '' ? Number.NaN : Number(x))));
  // The verb's tuple reads numbers; its generic type says unknown[].
  return parts.pipe(tuple as z.ZodType<unknown, number[]>);
}

/** A parameter given once or repeated (`geo=a&geo=b`); commas are not split here (names contain them). */
function repeated(description: string | undefined) {
  const schema = z.preprocess((v) => (v === '' ? undefined : v), z.union([z.string(), z.array(z.string())]));
  return description ? schema.describe(description) : schema;
}

function queryParam(name: string, field: z.ZodType, describe: string | undefined): z.ZodType {
  const description = describe ?? field.description;
  const { inner, optional } = unwrapped(field);
  const out = (): z.ZodType => {
    switch (inner.def.type) {
      case 'number': {
        const n = inner as z.ZodNumber;
        const opts = { min: bound(n.minValue), max: bound(n.maxValue), description };
        return n.isInt ? queryInt(opts) : queryFloat(opts);
      }
      case 'pipe': {
        // A coerced number checked by a piped range (`z.coerce.number().pipe(z.number().min(-90))`).
        const target = (inner.def as unknown as { out: z.ZodType }).out;
        if (target.def.type !== 'number') break;
        const n = target as z.ZodNumber;
        return queryFloat({ min: bound(n.minValue), max: bound(n.maxValue), description });
      }
      case 'boolean':
        return queryBool(description);
      case 'string': {
        const checked = lengths(inner as z.ZodString);
        return checked ? queryString(description).pipe(checked) : queryString(description);
      }
      case 'enum': {
        const e = z.enum((inner as z.ZodEnum).options as [string, ...string[]]);
        const o = optional ? e.optional() : e;
        return description ? o.describe(description) : o;
      }
      case 'union':
        return repeated(description);
      case 'tuple':
        return queryTuple(inner as z.ZodTuple, description);
    }
    throw new Error(`query parameter ${name}: no URL form for a ${inner.def.type}`);
  };
  const schema = out();
  if (inner.def.type === 'enum') return schema;
  return optional ? schema.optional() : schema;
}

function pathParam(name: string, field: z.ZodType, describe: string | undefined): z.ZodType {
  const { inner } = unwrapped(field);
  // An enum travels as text: the verb checks the value (its error placed at the path parameter).
  if (inner.def.type !== 'string' && inner.def.type !== 'enum') throw new Error(`path parameter ${name}: only text travels in a path`);
  const schema = (inner.def.type === 'string' && lengths(inner as z.ZodString)) || z.string();
  const description = describe ?? field.description;
  return description ? schema.describe(description) : schema;
}

const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

/**
 * How the URL's text of a field is read into the value the verb's schema takes. Never refuses:
 * text that is not the field's type stays text, and the verb's schema refuses it (an int field
 * given `abc` is its `int_parsing`, docs/errors.md).
 */
function urlReader(field: z.ZodType): (v: unknown) => unknown {
  const { inner } = unwrapped(field);
  const kind = inner.def.type === 'pipe' ? (inner.def as unknown as { out: z.ZodType }).out.def.type : inner.def.type;
  const read = (s: string): unknown => {
    const t = s.trim();
    switch (kind) {
      case 'number':
        return (inner.def.type === 'number' && (inner as z.ZodNumber).isInt ? INT : FLOAT).test(t) ? Number(t) : s;
      case 'boolean':
        return TRUE.has(t.toLowerCase()) ? true : FALSE.has(t.toLowerCase()) ? false : s;
      case 'tuple':
        return s.split(',').map((x) => (x.trim() === '' ? Number.NaN : Number(x)));
      default:
        return s;
    }
  };
  // An empty value (`?vintage=`) is absent, as forms send it.
  return (v) => (v === '' ? undefined : typeof v === 'string' ? read(v) : v);
}

export function restSchemas<S extends z.ZodObject>(input: S, mapping: RestMapping<S> = {}): RestSchemas {
  const query: Record<string, z.ZodType> = {};
  const params: Record<string, z.ZodType> = {};
  const fields: Record<string, string> = {};
  const fromPath: Record<string, string> = {};
  const aliasOf: Record<string, string> = {};
  const readers: Record<string, (v: unknown) => unknown> = {};
  for (const [name, field] of Object.entries(input.shape as Record<string, z.ZodType>)) {
    const m = (mapping as Record<string, RestField | false | undefined>)[name];
    if (m === false) continue;
    if (m?.path) {
      params[m.path] = pathParam(name, field, m.describe);
      fromPath[m.path] = name;
      if (m.path !== name) fields[name] = `path → ${m.path}`;
      continue;
    }
    query[name] = queryParam(name, field, m?.describe);
    readers[name] = urlReader(field);
    for (const [alias, describe] of Object.entries(m?.aliases ?? {})) {
      query[alias] = queryParam(alias, field, describe);
      readers[alias] = readers[name];
      aliasOf[alias] = name;
    }
  }
  return {
    querystring: Object.keys(query).length ? z.object(query) : undefined,
    params: Object.keys(params).length ? z.object(params) : undefined,
    fields,
    toInput(q, p) {
      const out: Record<string, unknown> = {};
      for (const name of Object.keys(query)) {
        const value = readers[name]!(q[name]);
        if (value === undefined) continue;
        const field = aliasOf[name] ?? name;
        if (out[field] !== undefined && out[field] !== value) {
          throw new AppError('validation-error', `${field} and ${name} are the same parameter; give one of them.`, {
            errors: [{ field: `query → ${name}`, message: `conflicts with ${field}`, type: 'value_error' }],
          });
        }
        out[field] = value;
      }
      for (const [param, name] of Object.entries(fromPath)) out[name] = p[param];
      return out;
    },
  };
}
