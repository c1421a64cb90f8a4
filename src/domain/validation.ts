// Schema-validation failures in the spec's terms: which parameter, what kind of failure
// (`missing`, `int_parsing`, …) and whether the request is unreadable (422) or readable but
// unacceptable (400). Shared by the HTTP layer (fastify's schema validation) and the operations
// (parseInput), so MCP arguments and query strings get the same answers. docs/errors.md states the rule.
import type { z } from 'zod';
import { AppError, quoteInput, type FieldError } from './errors.js';

// Validation types that mean "the parameter could not be read as its declared type". Any of these
// makes the whole response 422; otherwise a schema failure is a 400 (well-typed but unacceptable
// value). docs/errors.md states the rule.
const UNREADABLE = new Set(['missing', 'int_parsing', 'float_parsing', 'bool_parsing', 'string_type', 'list_type', 'dict_type', 'enum']);

export interface SchemaIssue {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function valueAt(root: unknown, segments: string[]): unknown {
  let cur = root;
  for (const s of segments) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

/** The schema of the field at `segments` under optional/default/nullable wrappers, when `schema` is an object schema. */
function fieldSchema(schema: z.ZodType | undefined, segments: string[]): z.ZodType | undefined {
  let cur: z.ZodType | undefined = schema;
  for (const s of segments) {
    while (cur && ['optional', 'default', 'nullable'].includes(cur.def.type)) cur = (cur as z.ZodType & { unwrap(): z.ZodType }).unwrap();
    cur = cur?.def.type === 'object' ? (cur as z.ZodObject).shape[s] : undefined;
  }
  while (cur && ['optional', 'default', 'nullable'].includes(cur.def.type)) cur = (cur as z.ZodType & { unwrap(): z.ZodType }).unwrap();
  return cur;
}

function typeOfIssue(issue: SchemaIssue, raw: unknown, field?: z.ZodType): string {
  const p = issue.params ?? {};
  const nested = p.params as Record<string, unknown> | undefined;
  if (typeof nested?.type === 'string') return nested.type;
  // `?geo=` is how forms and careless clients say "no value": report it as missing, whatever check failed.
  if (typeof raw === 'string' && raw.trim() === '') return 'missing';
  // Any check that fails on an absent value (a union, a preprocess) means the value is missing.
  if (raw === undefined) return 'missing';
  switch (issue.keyword) {
    case 'invalid_type': {
      if (raw === undefined) return 'missing';
      const expected = String(p.expected ?? '');
      // An integer field reports int_parsing whichever transport read it: a query string through
      // queryInt, or JSON arguments (MCP), where zod only says it expected a number.
      if (expected === 'int' || (expected === 'number' && field?.def.type === 'number' && (field as z.ZodNumber).isInt))
        return 'int_parsing';
      if (expected === 'number') return 'float_parsing';
      if (expected === 'boolean') return 'bool_parsing';
      if (expected === 'array') return 'list_type';
      if (expected === 'object') return 'dict_type';
      return 'string_type';
    }
    case 'invalid_value':
      return p.expected === 'stringbool' ? 'bool_parsing' : 'enum';
    case 'too_small':
      return p.origin === 'string' ? 'string_too_short' : p.origin === 'array' ? 'too_short' : 'greater_than_equal';
    case 'too_big':
      return p.origin === 'string' ? 'string_too_long' : p.origin === 'array' ? 'too_long' : 'less_than_equal';
    case 'invalid_format':
      return 'string_pattern_mismatch';
    case 'unrecognized_keys':
      return 'extra_forbidden';
    case 'not_multiple_of':
      return 'multiple_of';
    default:
      return 'value_error';
  }
}

function messageOf(type: string, issue: SchemaIssue, field: string): string {
  if (type === 'missing') return `Field required: ${field.split(' → ').pop()}`;
  if (type === 'int_parsing') return 'Input should be a valid integer';
  if (type === 'float_parsing') return 'Input should be a valid number';
  if (type === 'bool_parsing') return 'Input should be a valid boolean (true or false)';
  return issue.message ?? 'Invalid value';
}

/**
 * Turn schema issues into the spec's 422/400 validation-error. `where` is `query`, `path`, `body`, …
 * when the transport knows it; operations leave it empty and name fields neutrally (`geo`), and
 * each transport places them (`query → geo`, `arguments → geo`; see placeFields).
 */
export function validationError(issues: SchemaIssue[], where: string, raw: unknown, schema?: z.ZodType): AppError {
  const errors: FieldError[] = issues.flatMap((issue) => {
    const segments = (issue.instancePath ?? '').split('/').filter(Boolean);
    // An unknown parameter is reported under its own name, one error per name.
    const unknown = issue.keyword === 'unrecognized_keys' && Array.isArray(issue.params?.keys) ? (issue.params.keys as string[]) : null;
    if (unknown) {
      // Quoted, not echoed: a parameter name is the client's input and may be thousands of characters.
      return unknown.map((k) => ({
        field: [where, ...segments, quoteInput(k)].filter(Boolean).join(' → '),
        message: `unknown parameter "${quoteInput(k)}"`,
        type: 'extra_forbidden',
      }));
    }
    const type = typeOfIssue(issue, valueAt(raw, segments), fieldSchema(schema, segments));
    const field = [where, ...segments].filter(Boolean).join(' → ') || where;
    return [{ field, message: messageOf(type, issue, field), type }];
  });
  const unreadable = errors.some((e) => UNREADABLE.has(e.type));
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new AppError(unreadable ? 'unprocessable-request' : 'validation-error', detail, { errors });
}

/** zod's issues in the shape fastify reports them (keyword, instancePath, params). */
export function schemaIssues(error: Pick<z.ZodError, 'issues'>): SchemaIssue[] {
  return error.issues.map((i) => ({
    keyword: i.code,
    instancePath: i.path.length ? `/${i.path.map(String).join('/')}` : '',
    message: i.message,
    params: i as unknown as Record<string, unknown>,
  }));
}

/** Validate an operation's input; failures become the same problem errors as HTTP validation. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where = ''): z.output<S> {
  const raw = input ?? {};
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  throw validationError(schemaIssues(r.error), where, raw, schema);
}
