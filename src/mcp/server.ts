// The MCP endpoint: POST {mcp_url} (= /mcp), streamable HTTP transport, stateless.
//
// Stateless: every POST gets a fresh SDK Server and transport and no Mcp-Session-Id is issued, so
// any process behind a load balancer can answer any request and nothing is kept between them but
// the auth cache. The tools need no server-initiated messages (no sampling, no progress streams),
// so sessions would buy nothing. Responses are plain JSON (enableJsonResponse), not SSE.
//
// Before the MCP exchange, as plain HTTP with problem+json bodies: Host/Origin checks (403
// forbidden), the Bearer key (401), the plan (403 feature-requires-upgrade for Free). After it,
// every failure of a tool call is a tool result with isError: true (errors.ts).
//
// We use the SDK's low-level Server rather than McpServer so that the tool list (JSON Schema from
// the verbs' zod shapes) is computed once at boot instead of on every request, and so that bad
// arguments produce our problem format with field errors and a next step instead of the SDK's
// generic "Input validation error" text.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { SERVICE_VERSION } from '../version.js';
import { requestScope, type RequestScope } from '../verbs/lifecycle/request-scope.js';
import { callerOfKey, log, refund, serve, type Transport } from '../verbs/lifecycle/lifecycle.js';
import { requireFeature } from '../domain/plans.js';
import { BEARER_CHALLENGE, bearerToken } from '../presentation/credentials.js';
import type { Caller, VerbContext, VerbResult } from '../context/verb-context.js';
import { AuthCache } from './auth-cache.js';
import { toolErrorResult } from './errors.js';
import { originPolicy } from './origin.js';
import { TOOLS, type ToolDef } from './tools.js';
import { datasetParamDescription } from '../verbs/dataset-schemas.js';
import { lookupCostTerms } from '../verbs/describe-plans.js';

export const MCP_PATH = '/mcp';
export const MCP_SERVER_INFO = {
  name: 'census-data-service',
  title: 'Census Data Service (American Community Survey)',
  version: SERVICE_VERSION,
};

const INSTRUCTIONS = `US Census Bureau American Community Survey (ACS) estimates with margins of error.
Typical flow: search_variables ("median household income") → search_geographies ("Travis") or geocode (an address) → get_census_data / compare_geographies / get_timeseries. get_coverage (${lookupCostTerms().replace(/\.$/, '')}) says which datasets and years have values for a place before you ask for them.
Geography keys: state:06, county:48453, metro:12420, cd:4835, tract:48453001100, block_group:484530011001. Datasets: ${datasetParamDescription()}.
Report values with their margin of error (90% confidence). When a tool returns isError, its text says what to do next.`;

export interface McpOptions {
  /** Overrides config.MCP_AUTH_CACHE_TTL_MS (tests). */
  authCacheTtlMs?: number;
}

function toolListEntry(t: ToolDef): Tool {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(t.input, { io: 'input' }) as Record<string, unknown>;
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: schema as Tool['inputSchema'],
    annotations: { title: t.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

/** What every MCP request shares, built once at boot. */
interface McpDeps {
  services: FastifyInstance['services'];
  cache: AuthCache;
  policy: ReturnType<typeof originPolicy>;
  tools: Tool[];
  byName: Map<string, ToolDef>;
}

/**
 * The SDK's server side, loaded on the first POST /mcp rather than at start: with ajv it was
 * about 100 ms of CPU of every start (national start-up target 3 s, docs/performance.md), for a
 * transport many deployments never receive a request on.
 */
interface Sdk {
  Server: typeof import('@modelcontextprotocol/sdk/server/index.js').Server;
  StreamableHTTPServerTransport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
  CallToolRequestSchema: typeof import('@modelcontextprotocol/sdk/types.js').CallToolRequestSchema;
  ListToolsRequestSchema: typeof import('@modelcontextprotocol/sdk/types.js').ListToolsRequestSchema;
  /**
   * The SDK builds a new Ajv per Server unless given one, which dominated the per-request cost
   * (profiled: ~0.4 ms of CPU per call). It is only used for elicitation, which we never send.
   */
  jsonSchemaValidator: AjvJsonSchemaValidator;
}

let sdkLoading: Promise<Sdk> | undefined;

function sdk(): Promise<Sdk> {
  sdkLoading ??= (async () => {
    const [server, streamable, ajv, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/validation/ajv'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    return {
      Server: server.Server,
      StreamableHTTPServerTransport: streamable.StreamableHTTPServerTransport,
      CallToolRequestSchema: types.CallToolRequestSchema,
      ListToolsRequestSchema: types.ListToolsRequestSchema,
      jsonSchemaValidator: new ajv.AjvJsonSchemaValidator(),
    };
  })().catch((e: unknown) => {
    sdkLoading = undefined; // the next request tries again
    throw e;
  });
  return sdkLoading;
}

export async function registerMcp(app: FastifyInstance, opts: McpOptions = {}): Promise<void> {
  const services = app.services;
  const { config } = services;
  const deps: McpDeps = {
    services,
    cache: new AuthCache({
      ttlMs: opts.authCacheTtlMs ?? config.MCP_AUTH_CACHE_TTL_MS ?? 0,
      now: services.now,
      generation: () => (services.stores.accounts as { authGeneration?: () => number } | undefined)?.authGeneration?.(),
    }),
    policy: originPolicy(config),
    tools: TOOLS.map(toolListEntry),
    byName: new Map(TOOLS.map((t) => [t.name, t])),
  };
  app.post(MCP_PATH, { schema: { hide: true } }, (req, reply) => handle(app, deps, req, reply));
}

/** The credential phase of an MCP exchange: the Bearer key, once per POST, through the auth cache; its tool calls reuse the caller. */
async function authenticate(deps: McpDeps, req: FastifyRequest): Promise<Caller> {
  const { services, cache } = deps;
  const verify = services.seams.authenticateKey;
  return callerOfKey(bearerToken(req.headers), {
    ctx: baseContext(deps, req, null, req.id, 'mcp'),
    verify: verify && ((key, ctx) => cache.get(key, () => verify(key, ctx))),
    missing: () =>
      new AppError(
        'missing-api-key',
        'Send your API key as Authorization: Bearer <API_KEY> (MCP clients: set it as a header in the server configuration).',
        {
          headers: { 'WWW-Authenticate': BEARER_CHALLENGE },
        },
      ),
    challenge: `${BEARER_CHALLENGE}, error="invalid_token"`,
  });
}

function baseContext({ services }: McpDeps, req: FastifyRequest, caller: Caller | null, requestId: string, via: string): VerbContext {
  return {
    requestId,
    caller,
    stores: req.stores ?? services.stores,
    config: services.config,
    now: services.now,
    log: req.log as VerbContext['log'],
    via,
  };
}

/**
 * The same deadline REST requests have (REQUEST_TIMEOUT_MS): fastify's handler timeout stops
 * once the SDK owns the response, so tool calls get their own, answered as a tool error.
 */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AppError(
            'dependency-unavailable',
            `The tool call did not complete within ${ms} ms; narrow the request (fewer geographies, variables or vintages) or retry with backoff.`,
          ),
        ),
      ms,
    );
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

async function callTool(
  app: FastifyInstance,
  deps: McpDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  caller: Caller,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const { services, byName } = deps;
  const { config } = services;
  const instance = `mcp:${name}`;
  // One request id per tool call: admission's concurrency lease is keyed by it.
  const requestId = randomUUID();
  const ctx = baseContext(deps, req, caller, requestId, instance);
  const { seams } = services;
  let finished = false;
  let scope: RequestScope | undefined;
  const started = performance.now();
  // The call's lifecycle (src/verbs/lifecycle/lifecycle.ts); this transport says how MCP carries it.
  const transport: Transport<unknown, { result: VerbResult<unknown>; text: string }> = {
    // The exchange's Bearer key was verified once, for the POST (authenticate above).
    credential: async () => caller,
    // The call's charges, heavy slot and refunds (src/verbs/lifecycle/request-scope.ts), held until it ends.
    open: () => {
      const held = (scope = requestScope({
        caller,
        admit: seams.admit,
        heavyGate: app.heavyGate,
        ip: req.ip,
        instance,
        // RateLimit headers as on REST: the JSON response is written after the calls complete, so
        // the state after this charge is what the client sees.
        setHeaders: (headers) => {
          if (!reply.raw.headersSent) for (const [k, v] of Object.entries(headers)) reply.raw.setHeader(k, v);
        },
        closed: () => finished,
        atEnd: () => seams.release?.(ctx),
      }));
      ctx.charge = (units) => held.charge(ctx, units);
      ctx.request = held;
      // A response cut off before its end refunds every call it carried (app.ts).
      req.scopes.push(held);
      return ctx;
    },
    input: () => args ?? {},
    parse: (input) => tool!.parse(input),
    render: (result) => ({ result, text: tool!.render(result) }),
  };
  const tool = byName.get(name);
  try {
    if (!tool) throw new AppError('not-found', `No tool named "${name}". Tools: ${TOOLS.map((t) => t.name).join(', ')}.`);
    const { result, text } = await withDeadline(serve(transport, tool.verb), config.REQUEST_TIMEOUT_MS);
    log(ctx.log, { tool: name, mcp_call: requestId, ms: Math.round(performance.now() - started) }, 'mcp tool call');
    return {
      content: [{ type: 'text', text }],
      structuredContent: {
        data: result.data,
        meta: { ...result.meta, request_id: requestId },
        ...(result.page ? { page: result.page } : {}),
      } as Record<string, unknown>,
    };
  } catch (e) {
    const out = toolErrorResult(e, { requestId, errorsUrl: config.ERRORS_URL, instance });
    // Charge only what was served: the lifecycle refunds a run that failed on our side; this is
    // the deadline, which answered while the run went on.
    if (out.error.status >= 500 && scope) refund([scope]);
    if (out.unexpected) log(ctx.log, { tool: name, mcp_call: requestId }, 'mcp tool failed', e);
    else log(ctx.log, { tool: name, mcp_call: requestId, code: out.error.code }, 'mcp tool error');
    return out.result;
  } finally {
    finished = true;
    scope?.end();
  }
}

/**
 * The streamable HTTP transport requires a POST's Accept to list both application/json and
 * text/event-stream. The SDK would refuse it with a JSON-RPC error as application/json; refused
 * here first, it is a 406 problem+json like every other refusal before the exchange. The test is
 * the SDK's own (a substring per type), so what passes here the SDK accepts.
 */
function assertAcceptable(req: FastifyRequest): void {
  const accept = req.headers.accept ?? '';
  if (accept.includes('application/json') && accept.includes('text/event-stream')) return;
  throw new AppError(
    'not-acceptable',
    'The MCP endpoint answers a POST as application/json or text/event-stream: send Accept: application/json, text/event-stream (MCP clients do).',
  );
}

/** One POST /mcp: Host/Origin, key and plan checked as plain HTTP, then a fresh stateless SDK exchange. */
async function handle(app: FastifyInstance, deps: McpDeps, req: FastifyRequest, reply: FastifyReply) {
  const { config } = deps.services;
  deps.policy.check(req.headers);
  const caller = await authenticate(deps, req);
  requireFeature(caller.plan, { kind: 'mcp' }, config.DASHBOARD_URL);
  req.caller = caller;
  assertAcceptable(req);

  const { Server, StreamableHTTPServerTransport, CallToolRequestSchema, ListToolsRequestSchema, jsonSchemaValidator } = await sdk();
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: deps.tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(app, deps, req, reply, caller, request.params.name, request.params.arguments),
  );
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });

  // From here the SDK writes the response; headers fastify's hooks set (X-Request-ID, CORS)
  // are copied onto the raw response first.
  reply.hijack();
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v as string);
  // Every authenticated response carries the quota state (initialize and tools/list too).
  try {
    const current = deps.services.seams.rateLimitHeaders?.(baseContext(deps, req, caller, req.id, 'mcp')) ?? {};
    for (const [k, v] of Object.entries(current)) reply.raw.setHeader(k, v);
  } catch (err) {
    req.log.warn({ err }, 'rate-limit headers unavailable');
  }
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  } catch (err) {
    req.log.error({ err }, 'mcp transport failed');
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { 'content-type': 'application/json' });
      reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
    }
  }
}
