// Configuration comes from environment variables, validated once at boot. A bad value stops the
// process with a message naming the variable, instead of failing later on a request.
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const csvList = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

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
  /** Public base address, used in links when set (otherwise derived from the request). */
  BASE_URL: z.string().url().optional(),
  ERRORS_URL: z.string().url().default('https://census-data-service.dev/errors'),
  DASHBOARD_URL: z.string().url().default('https://census-data-service.dev/dashboard'),
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
  /** Build `data/` from CENSUS_SOURCE_DIR at start-up when it is missing. */
  AUTO_BUILD_DATA: bool.default(true),
  // Accounts and billing (src/store/accounts, src/billing; docs/accounts.md, docs/billing.md).
  /** Identity provider of the dashboard: tokens must carry this `iss`. Unset: account endpoints answer 503. */
  OIDC_ISSUER: z.string().url().optional(),
  /** Expected `aud` of dashboard tokens (the dashboard's client id / API identifier). */
  OIDC_AUDIENCE: z.string().optional(),
  /** JWKS address; discovered from `${OIDC_ISSUER}/.well-known/openid-configuration` when unset. */
  OIDC_JWKS_URL: z.string().url().optional(),
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
  /** How long the MCP endpoint trusts a verified key; revocation, rotation and plan changes empty the cache at once (auth generation), so it only bounds ToS changes. */
  MCP_AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parse and validate configuration; throws ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = { ...parsed.data, ...overrides };
  return { ...cfg, DATA_DIR: path.resolve(cfg.DATA_DIR), CENSUS_SOURCE_DIR: path.resolve(cfg.CENSUS_SOURCE_DIR) };
}
