// Configuration comes from environment variables, validated once at boot. A bad value stops the
// process with a message naming the variable, instead of failing later on a request.
import path from 'node:path';
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const csvList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  /** Where builds live; `${DATA_DIR}/current` is the live build. */
  DATA_DIR: z.string().default('data'),
  /** Source tree for the ETL (layout of ../shared/census). */
  CENSUS_SOURCE_DIR: z.string().default('../shared/census'),
  /** SQLite file for accounts, keys and usage. */
  DATABASE_PATH: z.string().default('data/accounts.sqlite'),
  /**
   * PostgreSQL for accounts, keys, usage and limits, shared by every replica (docs/replicas.md).
   * Set: DATABASE_PATH is not used. Unset: the embedded SQLite file.
   */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
    .optional(),
  /** PostgreSQL: connections per replica. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(100).default(10),
  /** PostgreSQL: a concurrency slot of a replica that died is freed after this long (renewed every third of it while held). */
  CONCURRENCY_LEASE_TTL_MS: z.coerce.number().int().min(500).max(600_000).default(15_000),
  /** PostgreSQL: how often a replica checks the auth generation (revocations, plan changes); bounds how late one is seen. */
  AUTH_GENERATION_POLL_MS: z.coerce.number().int().min(20).max(1_000).default(250),
  /** Public base address, used in links when set (otherwise derived from the request). */
  BASE_URL: z.string().url().optional(),
  ERRORS_URL: z.string().url().default('https://census-data-service.dev/errors'),
  /** Where `upgrade_url` and checkout returns point; default: this server's own /dashboard (BASE_URL, else http://localhost:PORT). */
  DASHBOARD_URL: z.string().url().optional(),
  /** Comma-separated allow-list of browser origins for CORS. Empty: no cross-origin access. */
  CORS_ORIGINS: csvList.default([]),
  /** Comma-separated feature flags that are switched off (503 feature-unavailable). */
  DISABLED_FEATURES: csvList.default([]),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Trust X-Forwarded-* headers from any peer. Off by default: with it on and no BASE_URL, any
   * client could rewrite `links` with X-Forwarded-Host. Prefer TRUSTED_PROXIES.
   */
  TRUST_PROXY: bool.default(false),
  /**
   * Addresses or CIDR ranges of the reverse proxies whose X-Forwarded-* headers are honoured
   * (also `loopback`, `linklocal`, `uniquelocal`); takes precedence over TRUST_PROXY.
   */
  TRUSTED_PROXIES: csvList.default([]),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10_000),
  /** Heavy requests (wildcards, geometry, CSV) computed at once; the rest wait in their own queue. */
  HEAVY_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Heavy requests allowed to wait; past it they answer 503 with Retry-After. */
  HEAVY_QUEUE: z.coerce.number().int().min(0).max(10_000).default(200),
  /** Cells of query results kept in memory (the build is immutable); 0 disables the cache. */
  OBSERVATION_CACHE_CELLS: z.coerce.number().int().min(0).default(250_000),
  /**
   * Bytes of observation files prepared (hashed, indexes opened) in the background after start,
   * so the first requests do not pay for it (src/store/warm-up.ts); 0 turns the warm-up off.
   */
  WARM_UP_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(512 * 1024 * 1024),
  /** Build `data/` from CENSUS_SOURCE_DIR at start-up when it is missing. */
  AUTO_BUILD_DATA: bool.default(true),
  // Builds from object storage (docs/publishing.md).
  /**
   * Where published builds are pulled from: a directory or `s3://bucket/prefix` (written by
   * `npm run etl -- publish`). Set: the build is pulled into DATA_DIR at start, verified, and a
   * newer published one is switched to while serving; nothing is built locally.
   */
  DATA_SOURCE: z
    .string()
    .regex(/^(s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?|[^:]+)$/, 'a directory or s3://bucket/prefix')
    .optional(),
  /** Pin one published build id (no switching); default: follow the published `latest`. */
  DATA_BUILD: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'a build id')
    .optional(),
  /** How often DATA_SOURCE is asked for a newer build; 0: only at start. */
  DATA_POLL_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
  /** S3-compatible endpoint (path-style addressing), e.g. a local MinIO; unset: AWS S3 from the AWS_* variables. */
  S3_ENDPOINT: z.string().url().optional(),
  /** Bearer token that /metrics requires (Prometheus text format); unset: /metrics is not served. */
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  // Accounts and billing (src/store/accounts, src/billing; docs/accounts.md, docs/billing.md).
  /** Identity provider of the dashboard: tokens must carry this `iss`. Unset: account endpoints answer 503. */
  OIDC_ISSUER: z.string().url().optional(),
  /** Expected `aud` of dashboard tokens (the dashboard's client id / API identifier). */
  OIDC_AUDIENCE: z.string().optional(),
  /** JWKS address; discovered from `${OIDC_ISSUER}/.well-known/openid-configuration` when unset. */
  OIDC_JWKS_URL: z.string().url().optional(),
  /** OAuth client id of the dashboard at the provider; default OIDC_AUDIENCE. ID tokens carry it as `aud`. */
  OIDC_CLIENT_ID: z.string().optional(),
  /** Client secret (confidential client); unset: public client, PKCE only. */
  OIDC_CLIENT_SECRET: z.string().optional(),
  OIDC_SCOPES: z.string().default('openid email profile'),
  /**
   * In-process development identity provider (e-mail sign-in, no password) for the dashboard.
   * Default: on when NODE_ENV=development and OIDC_ISSUER is unset; never on by default in
   * production or test. Anyone can sign in as any e-mail with it: a warning is logged when on.
   */
  DEV_IDP: bool.optional(),
  /** Lifetime of a dashboard sign-in session (sliding, server-side). */
  DASHBOARD_SESSION_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(12),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  /** Override of Stripe's API address (a local stub in tests), e.g. `http://127.0.0.1:12111`. */
  STRIPE_API_URL: z.string().url().optional(),
  /** Pin the current terms-of-service version; default: newest published document in effect. */
  TOS_CURRENT_VERSION: z.string().optional(),
  /** Private beta: key creation requires an activated invite code. */
  INVITE_REQUIRED: bool.default(false),
  // MCP server (src/mcp, docs/mcp.md).
  /** Host names (optionally host:port) the MCP endpoint answers to; loopback and BASE_URL's host are always allowed. */
  MCP_ALLOWED_HOSTS: csvList.default([]),
  /** How long a verified key's plan is trusted by the MCP endpoint: revocation and plan changes apply within it. */
  // 0: MCP relies on the accounts key cache, which sees revocations at once (store/accounts/key-cache.ts).
  MCP_AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(0),
});

export type Config = Omit<z.infer<typeof configSchema>, 'DASHBOARD_URL' | 'DEV_IDP'> & { DASHBOARD_URL: string; DEV_IDP: boolean };

export class ConfigError extends Error {}

/** Parse and validate configuration; throws ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = { ...parsed.data, ...overrides };
  const origin = (cfg.BASE_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/$/, '');
  const devIdp = cfg.DEV_IDP ?? (cfg.NODE_ENV === 'development' && !cfg.OIDC_ISSUER);
  return {
    ...cfg,
    DASHBOARD_URL: cfg.DASHBOARD_URL ?? `${origin}/dashboard`,
    DEV_IDP: devIdp,
    DATA_DIR: path.resolve(cfg.DATA_DIR),
    DATA_SOURCE: cfg.DATA_SOURCE && !cfg.DATA_SOURCE.startsWith('s3://') ? path.resolve(cfg.DATA_SOURCE) : cfg.DATA_SOURCE,
    CENSUS_SOURCE_DIR: path.resolve(cfg.CENSUS_SOURCE_DIR),
  };
}

/** Where the dashboard's sign-in goes: an external provider, the in-process development one, or nowhere. */
export type SignIn =
  | { mode: 'external'; issuer: string; clientId: string; clientSecret?: string; audiences: string[]; scopes: string }
  | { mode: 'dev'; issuer: string; clientId: string; audiences: string[]; scopes: string }
  | { mode: 'none' };

export const DEV_IDP_PATH = '/dev-idp';
export const DEV_IDP_CLIENT_ID = 'census-dashboard-dev';

export function signInOf(config: Config): SignIn {
  if (config.OIDC_ISSUER) {
    const clientId = config.OIDC_CLIENT_ID ?? config.OIDC_AUDIENCE;
    if (!clientId) return { mode: 'none' };
    const audiences = [...new Set([clientId, config.OIDC_AUDIENCE].filter((a): a is string => !!a))];
    return {
      mode: 'external',
      issuer: config.OIDC_ISSUER,
      clientId,
      clientSecret: config.OIDC_CLIENT_SECRET,
      audiences,
      scopes: config.OIDC_SCOPES,
    };
  }
  if (config.DEV_IDP) {
    const origin = (config.BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
    return {
      mode: 'dev',
      issuer: `${origin}${DEV_IDP_PATH}`,
      clientId: DEV_IDP_CLIENT_ID,
      audiences: [DEV_IDP_CLIENT_ID],
      scopes: 'openid email',
    };
  }
  return { mode: 'none' };
}
