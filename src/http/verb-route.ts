// A route that renders one operation (src/verbs/define-verb.ts). Its query and path schemas are
// derived from the verb's input (verb-schemas.ts), its kill switch and formats are the verb's, and
// the verb's lifecycle queues and charges it (costOf 'verb'): the route adds only what
// is HTTP's own — the URL, auth mode, the stores it needs (503 before anything runs), the response
// documentation and the CSV/compact renderings.
import type { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { StoreName } from '../context/stores.js';
import type { VerbResult } from '../context/verb-context.js';
import type { Verb, VerbFormat } from '../verbs/define-verb.js';
import type { AuthMode } from './plugins/auth.js';
import type { CsvTable } from './csv.js';
import { defineRoute } from './route-helpers.js';
import { restSchemas, type RestMapping } from './verb-schemas.js';

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

function formatOf(query: Record<string, unknown>): VerbFormat {
  return query.format === 'csv' || query.format === 'compact' ? query.format : 'json';
}

export function defineVerbRoute<S extends z.ZodObject, O>(app: FastifyInstance, spec: VerbRouteSpec<S, O>) {
  const { verb } = spec;
  const rest = restSchemas(verb.spec.input, spec.rest);
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
    formats: [...(verb.spec.formats ?? ['json'])],
    querystring: rest.querystring,
    params: rest.params,
    fields: rest.fields,
    costOf: 'verb',
    data,
    handler: ({ ctx, query, params }) => verb.invoke({ ctx, input: rest.toInput(query, params ?? {}), format: formatOf(query) }),
    csv: spec.csv ? (result) => spec.csv!(result) : undefined,
    compact: spec.compact,
    verbGated: true,
  });
}
