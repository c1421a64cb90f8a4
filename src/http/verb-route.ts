// A route that renders one operation (src/verbs/define-verb.ts). Its query and path schemas are
// derived from the verb's input (verb-schemas.ts) and describe it in /openapi.json; the request runs
// the verb's lifecycle (src/verbs/lifecycle/lifecycle.ts `serve`) from its credential to the
// render, and the verb's schema validates it, once. The route adds only what is HTTP's own — the
// URL, auth mode, the stores it needs, the response documentation and the CSV/compact renderings.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { StoreName } from '../context/stores.js';
import type { VerbResult } from '../context/verb-context.js';
import type { Verb, VerbFormat } from '../verbs/define-verb.js';
import type { AuthMode } from './plugins/auth.js';
import type { CsvTable } from './csv.js';
import { defineRoute, formatQuery } from './route-helpers.js';
import { restSchemas, type RestMapping } from './verb-schemas.js';
import { httpTransport } from './verb-transport.js';
import { serve } from '../verbs/lifecycle/lifecycle.js';
import { parseInput } from '../domain/validation.js';

export interface VerbRouteSpec<S extends z.ZodObject, O> {
  verb: Verb<S, O>;
  /** How REST renders the verb's fields: path parameters, REST wording of descriptions. */
  rest?: RestMapping<S>;
  url: string;
  summary: string;
  description?: string;
  tags?: readonly string[];
  auth: AuthMode;
  needs?: readonly StoreName[];
  paginated?: boolean;
  errorStatuses?: readonly number[];
  /** The documented response `data` (default: the verb's output schema). */
  data?: z.ZodType;
  csv?: (result: VerbResult<O>) => CsvTable;
  compact?: (result: VerbResult<O>) => unknown;
}

/**
 * `format=`: how REST renders the answer (json, csv, compact), read among the route's formats (422
 * `enum` otherwise) with the schema its querystring documents (formatQuery). It is made once per
 * route: zod compiles an object schema on its first parse, so one made per request cost a /v1/data
 * request about a third of its throughput.
 */
function formatReader(formats: readonly VerbFormat[]): (query: Record<string, unknown>) => VerbFormat {
  const schema = formatQuery(formats);
  if (!schema) return () => 'json';
  return (query) => parseInput(schema, { format: query.format }, 'query').format ?? 'json';
}

export function defineVerbRoute<S extends z.ZodObject, O>(app: FastifyInstance, spec: VerbRouteSpec<S, O>) {
  const { verb } = spec;
  const rest = restSchemas(verb.spec.input, spec.rest);
  const formats: readonly VerbFormat[] = verb.spec.formats ?? ['json'];
  const formatOf = formatReader(formats);
  const data = spec.data ?? verb.spec.output;
  if (!data) throw new Error(`${spec.url}: the verb ${verb.spec.name} declares no output schema`);
  defineRoute<z.ZodObject, z.ZodObject, z.ZodUndefined, z.ZodType, O>(app, {
    url: spec.url,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags && [...spec.tags],
    auth: spec.auth,
    needs: spec.needs && [...spec.needs],
    paginated: spec.paginated,
    errorStatuses: spec.errorStatuses && [...spec.errorStatuses],
    feature: verb.spec.feature,
    formats: [...formats],
    querystring: rest.querystring,
    params: rest.params,
    fields: rest.fields,
    costOf: 'verb',
    data,
    lifecycle: ({ req, reply, refuse, render }) => {
      const query = req.query as Record<string, unknown>;
      let format: VerbFormat = 'json';
      const transport = httpTransport(req, reply, {
        refuse: () => {
          refuse();
          format = formatOf(query);
        },
        input: () => rest.toInput(query, (req.params as Record<string, unknown>) ?? {}),
        get format() {
          return format;
        },
        render,
      });
      return serve(transport, verb.spec);
    },
    csv: spec.csv ? (result) => spec.csv!(result) : undefined,
    compact: spec.compact,
    verbGated: true,
  });
}
