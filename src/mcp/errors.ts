// How a failure reaches an agent: a tool result with isError (the MCP way to say "the call was
// understood and failed", which the model sees and can act on), never a JSON-RPC or HTTP failure.
// The text carries the problem's title and detail, the field errors, and one next step the agent
// can take without reading our docs; structuredContent carries the same problem body REST sends.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { AppError, placeFields, type FieldError } from '../domain/errors.js';
import { schemaIssues, validationError } from '../domain/validation.js';
import { problemBody, toAppError } from '../presentation/problem.js';

/** A likely intended name for an argument an agent invented. */
const ARGUMENT_ALIASES: Record<string, string> = {
  year: 'vintage',
  years: 'from/to',
  variable: 'variables',
  var: 'variables',
  vars: 'variables',
  geography: 'geo',
  geographies: 'geo',
  geos: 'geo',
  geo_key: 'geo',
  survey: 'dataset',
  query: 'search',
  q: 'search',
  name: 'search',
  latitude: 'lat',
  longitude: 'lng',
  lon: 'lng',
  start: 'from',
  end: 'to',
};

/**
 * zod issues of a tool's arguments → the spec's field errors (`arguments → geo`), by the same
 * mapper as REST query strings and operation inputs (src/domain/validation.ts); an unknown
 * argument gets the likely intended name.
 */
export function argumentsError(
  tool: string,
  issues: readonly z.core.$ZodIssue[],
  args: Record<string, unknown>,
  schema?: z.ZodType,
): AppError {
  const base = validationError(schemaIssues({ issues: [...issues] }), 'arguments', args, schema);
  const errors: FieldError[] = (base.errors ?? []).map((e) => {
    if (e.type !== 'extra_forbidden') return e;
    const name = e.field.split(' → ').pop()!;
    const alias = ARGUMENT_ALIASES[name.toLowerCase()];
    return { ...e, message: `unknown argument "${name}"${alias ? `; did you mean "${alias}"?` : ''}` };
  });
  const list = errors.map((e) => `${e.field.replace('arguments → ', '')}: ${e.message}`).join('; ');
  const detail = `Invalid arguments for ${tool}: ${list}${list.endsWith('?') ? '' : '.'}`;
  return new AppError(base.code, detail, { errors });
}

function nextStep(e: AppError): string {
  const ext = e.extensions;
  switch (e.code) {
    case 'validation-error':
    case 'unprocessable-request':
      return "Fix the arguments named above (the tool's input schema lists each one) and call again.";
    case 'invalid-vintage':
    case 'invalid-dataset':
      return 'Call list_datasets for the datasets and the vintages each one has, then call again.';
    case 'invalid-geo-format':
    case 'geography-not-found':
      return 'Call search_geographies (e.g. search: "Travis") to find the geography key, such as state:06 or county:48453, and call again.';
    case 'ambiguous-geography-name':
      return 'Use one of the geography keys listed above instead of the name, or add the state (e.g. "Springfield, IL").';
    case 'unsupported-child-type':
      return 'Ask for a child type the parent has (listed above).';
    case 'variable-not-found': {
      const s = Array.isArray(ext.suggestions) && ext.suggestions.length ? ` Closest: ${(ext.suggestions as string[]).join(', ')}.` : '';
      return `Call search_variables with a few words (e.g. "median income") to find the api_name or census code.${s}`;
    }
    case 'feature-requires-upgrade': {
      const plan = typeof ext.required_plan === 'string' ? `to the ${ext.required_plan} plan` : 'the plan';
      const where = ext.upgrade_url ? ` (${String(ext.upgrade_url)})` : '';
      const instead = /wildcard|expan/i.test(e.detail)
        ? 'Ask for individual geography keys instead (search_geographies with type and parent lists them)'
        : 'Call again without the option that needs it (e.g. include_geometry)';
      return `${instead}, or upgrade ${plan}${where}.`;
    }
    case 'payload-too-large':
      return 'Narrow the request: fewer geographies (a smaller wildcard) or fewer variables.';
    case 'rate-limit-exceeded': {
      const after = e.headers['Retry-After'];
      if (ext.limit_type === 'monthly')
        return `The monthly quota is used up; it resets in ${after ?? 'some'} seconds. Upgrading raises it${ext.upgrade_url ? `: ${String(ext.upgrade_url)}` : ''}.`;
      return `Wait ${after ?? 'a few'} second(s) and call again${ext.limit_type === 'concurrency' ? ' (fewer calls at once)' : ''}.`;
    }
    case 'tos-acceptance-required':
      return `The account owner must accept the updated terms${ext.accept_url ? ` at ${String(ext.accept_url)}` : ' in the dashboard'}.`;
    case 'missing-api-key':
    case 'invalid-api-key':
      return 'Check the API key configured for this MCP server (Authorization: Bearer svc_live_…).';
    case 'dependency-unavailable':
    case 'feature-unavailable':
    case 'internal-error':
      return 'Retry in a little while; if it persists, quote the request_id to support.';
    default:
      return 'Adjust the request and call again.';
  }
}

export function toolErrorResult(
  err: unknown,
  opts: { requestId: string; errorsUrl: string; instance: string },
): { result: CallToolResult; error: AppError; unexpected: boolean } {
  const mapped = toAppError(err, () => undefined);
  const { unexpected } = mapped;
  // Operations name fields neutrally (`topic`); over MCP they are arguments.
  const error = placeFields(mapped.error, (name) => `arguments → ${name}`);
  const problem = problemBody(error, opts.errorsUrl, opts.requestId, opts.instance);
  const lines = [`Error: ${error.title} (${error.status}). ${error.detail}`];
  for (const f of problem.errors ?? []) lines.push(`- ${f.field}: ${f.message}`);
  lines.push(`Next step: ${nextStep(error)}`);
  lines.push(`(request_id ${opts.requestId})`);
  return {
    result: { isError: true, content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { problem } },
    error,
    unexpected,
  };
}
