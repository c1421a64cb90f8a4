// GET /metrics in the Prometheus text format (prom-client), served only when METRICS_TOKEN is set
// and only to a request carrying it as `Authorization: Bearer <token>` (docs/operations.md).
// Unset: no route, no hook, no cost. What is measured:
//   census_http_requests_total / census_http_request_duration_seconds  by method, route pattern, status
//   census_admission_total       admitted, or refused by reason (quota, burst, concurrency, terms, auth)
//   census_duckdb_query_duration_seconds, census_cache_lookups_total   (src/store/metrics.ts)
//   census_build_info{build_id}  the live build; census_builds_draining; census_build_source_up
// plus prom-client's process metrics. Route labels are the registered pattern
// (`/v1/geographies/:geo_id`), never the raw URL, so label sets stay bounded.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AppError } from '../../domain/errors.js';
import type { LiveStores } from '../../context/live-stores.js';
import { storeIfOpen } from '../../context/stores.js';
import { cacheLookups, duckdbQuerySeconds } from '../../store/metrics.js';
import type { Seams } from './context.js';

export const METRICS_PATH = '/metrics';

type Child = { inc(): void };
type HistChild = { observe(v: number): void };

const REASONS: Record<string, string> = { monthly: 'quota', burst: 'burst', concurrency: 'concurrency' };

function refusalReason(e: unknown): string {
  if (!(e instanceof AppError)) return 'error';
  if (e.status === 429) return REASONS[String(e.extensions?.limit_type)] ?? 'rate-limit';
  if (e.status === 401) return 'auth';
  if (e.status === 403) return 'terms';
  return 'error';
}

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly admission: Counter<'outcome' | 'reason'>;
  private readonly children = new Map<string, { count: Child; time: HistChild }>();
  private readonly admitted: Child;
  private readonly refusedAuth: Child;

  constructor(live: LiveStores) {
    const registers = [this.registry];
    this.registry.registerMetric(duckdbQuerySeconds);
    this.registry.registerMetric(cacheLookups);
    collectDefaultMetrics({ register: this.registry, prefix: 'census_' });
    this.requests = new Counter({
      name: 'census_http_requests_total',
      help: 'HTTP responses by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    });
    this.duration = new Histogram({
      name: 'census_http_request_duration_seconds',
      help: 'Time from request to response sent, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.admission = new Counter({
      name: 'census_admission_total',
      help: 'Admission decisions: outcome admitted, or refused with reason quota, burst, concurrency, terms, auth (401 responses); error when admission itself failed.',
      labelNames: ['outcome', 'reason'] as const,
      registers,
    });
    this.admitted = this.admission.labels('admitted', '');
    this.refusedAuth = this.admission.labels('refused', 'auth');
    new Gauge({
      name: 'census_build_info',
      help: 'The data build being served (value 1, id in the build_id label).',
      labelNames: ['build_id'] as const,
      registers,
      collect() {
        this.reset();
        const build = storeIfOpen(live.stores, 'build');
        if (build) this.labels(build.manifest.build_id).set(1);
      },
    });
    new Gauge({
      name: 'census_http_requests_in_flight',
      help: 'Requests being served from the live build right now.',
      registers,
      collect() {
        this.set(live.inFlight);
      },
    });
    new Gauge({
      name: 'census_builds_draining',
      help: 'Builds switched away from whose requests are still running.',
      registers,
      collect() {
        this.set(live.drainingCount);
      },
    });
    new Gauge({
      name: 'census_build_source_up',
      help: 'Whether DATA_SOURCE answered the last check (1), did not (0); absent without DATA_SOURCE.',
      registers,
      collect() {
        this.reset();
        const source = storeIfOpen(live.stores, 'buildSource');
        if (source && source.reachable !== null) this.set(source.reachable ? 1 : 0);
      },
    });
  }

  /** Seams whose admission decisions are counted. */
  instrument(seams: Seams): Seams {
    const admit = seams.admit;
    if (!admit) return seams;
    return {
      ...seams,
      admit: async (args) => {
        try {
          const r = await admit(args);
          this.admitted.inc();
          return r;
        } catch (e) {
          this.admission.labels(refusalReason(e) === 'error' ? 'error' : 'refused', refusalReason(e)).inc();
          throw e;
        }
      },
    };
  }

  private observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let c = this.children.get(key);
    if (!c) {
      const labels = [method, route, String(status)] as const;
      this.children.set(key, (c = { count: this.requests.labels(...labels), time: this.duration.labels(...labels) }));
    }
    c.count.inc();
    c.time.observe(seconds);
    if (status === 401) this.refusedAuth.inc();
  }

  register(app: FastifyInstance, token: string): void {
    const expected = createHash('sha256').update(token).digest();
    app.addHook('onResponse', (req, reply, done) => {
      const route = req.routeOptions.url ?? 'unmatched';
      if (route !== METRICS_PATH) this.observe(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
    app.get(METRICS_PATH, { schema: { hide: true }, logLevel: 'warn' }, async (req, reply) => {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      const given = createHash('sha256')
        .update(m?.[1] ?? '')
        .digest();
      if (!m || !timingSafeEqual(given, expected))
        throw new AppError('invalid-token', 'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>.', {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        });
      const body = await this.registry.metrics();
      return reply.header('Content-Type', this.registry.contentType).header('Cache-Control', 'no-store').send(body);
    });
  }
}
