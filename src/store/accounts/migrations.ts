// Schema migrations, applied in order; the index+1 is stored in PRAGMA user_version. Append only:
// never edit a migration that has shipped. Times are integer milliseconds since the epoch (UTC).
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    email TEXT,
    name TEXT,
    organization TEXT,
    plan TEXT NOT NULL DEFAULT 'free',
    oidc_issuer TEXT,
    oidc_subject TEXT,
    stripe_customer_id TEXT UNIQUE,
    activated_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted_at INTEGER
  );
  CREATE UNIQUE INDEX accounts_subject ON accounts(oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL;
  CREATE INDEX accounts_email ON accounts(email);
  CREATE INDEX accounts_deleted ON accounts(deleted_at) WHERE deleted_at IS NOT NULL;

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    display_prefix TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    last_used_at INTEGER,
    replaced_by TEXT
  );
  CREATE INDEX api_keys_account ON api_keys(account_id);

  -- Monthly quota counter per calendar month (period = 'YYYY-MM', UTC).
  CREATE TABLE usage_periods (
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    units INTEGER NOT NULL DEFAULT 0,
    requests INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period)
  ) WITHOUT ROWID;

  -- Burst counter per fixed one-minute window (window_start = epoch ms of the minute).
  CREATE TABLE usage_minutes (
    account_id TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    requests INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, window_start)
  ) WITHOUT ROWID;

  -- One row per admitted request (retention: 24 months; ip anonymized after 12).
  CREATE TABLE request_log (
    id INTEGER PRIMARY KEY,
    account_id TEXT NOT NULL,
    key_id TEXT,
    at INTEGER NOT NULL,
    route TEXT NOT NULL,
    units INTEGER NOT NULL,
    ip TEXT,
    ip_anonymized INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX request_log_at ON request_log(at);
  CREATE INDEX request_log_account ON request_log(account_id, at);

  CREATE TABLE tos_documents (
    version TEXT PRIMARY KEY,
    effective_at INTEGER NOT NULL,
    url TEXT,
    sha256 TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE tos_acceptances (
    id INTEGER PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    version TEXT NOT NULL,
    accepted_at INTEGER NOT NULL,
    ip TEXT,
    user_agent TEXT,
    ip_anonymized INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX tos_acceptances_account ON tos_acceptances(account_id, version);

  -- Invite codes are secrets: only their SHA-256 is stored.
  CREATE TABLE invite_codes (
    code_hash TEXT PRIMARY KEY,
    plan TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    used_by TEXT
  );

  -- Billing records (kept 7 years, survive account purge: no foreign key on purpose).
  CREATE TABLE stripe_events (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    created INTEGER NOT NULL,
    account_id TEXT,
    outcome TEXT NOT NULL,
    processed_at INTEGER NOT NULL
  );
  CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    customer_id TEXT,
    plan TEXT NOT NULL,
    interval TEXT,
    status TEXT NOT NULL,
    current_period_end INTEGER,
    last_event_created INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX subscriptions_account ON subscriptions(account_id);
  `,
  `
  -- Dashboard sign-in sessions (server-side, so sign-out and account deletion end them at once).
  -- Only the SHA-256 of the cookie value is stored; the CSRF token is a per-session secret the
  -- page echoes in X-CSRF-Token on every state-changing call.
  CREATE TABLE dashboard_sessions (
    id_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    csrf_token TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX dashboard_sessions_account ON dashboard_sessions(account_id);
  CREATE INDEX dashboard_sessions_expires ON dashboard_sessions(expires_at);
  `,
];
