// Schema migrations, applied in order; the index+1 is stored in PRAGMA user_version. Append only:
// never edit a migration that has shipped. Times are integer milliseconds since the epoch (UTC).
/** What the auth-generation triggers run (migration 4). */
const BUMP = 'UPDATE auth_generation SET gen = gen + 1 WHERE id = 1;';

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
  `
  -- One-row table of service-wide state. auth_generation moves whenever a key's standing can
  -- change (revocation, rotation, deletion, plan change), by trigger, so every writer counts (the
  -- server, the admin CLI, another replica): caches of verified keys compare it on each use and
  -- drop themselves when it moved. health_probe_at is what /health writes to prove writability.
  CREATE TABLE service_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    auth_generation INTEGER NOT NULL DEFAULT 0,
    health_probe_at INTEGER
  );
  INSERT INTO service_state (id) VALUES (1);
  CREATE TRIGGER auth_generation_key_update AFTER UPDATE OF revoked_at ON api_keys
    BEGIN UPDATE service_state SET auth_generation = auth_generation + 1 WHERE id = 1; END;
  CREATE TRIGGER auth_generation_key_delete AFTER DELETE ON api_keys
    BEGIN UPDATE service_state SET auth_generation = auth_generation + 1 WHERE id = 1; END;
  CREATE TRIGGER auth_generation_account AFTER UPDATE OF plan, deleted_at ON accounts
    BEGIN UPDATE service_state SET auth_generation = auth_generation + 1 WHERE id = 1; END;
  CREATE TRIGGER auth_generation_account_delete AFTER DELETE ON accounts
    BEGIN UPDATE service_state SET auth_generation = auth_generation + 1 WHERE id = 1; END;
  `,
  `
  -- One auth generation instead of two (migration 3's service_state.auth_generation, read by the
  -- MCP caller cache, and the key cache's own counter). The key cache's counter is the complete
  -- one (it also moves on terms changes and key re-assignment), so it becomes the only one and is
  -- owned here from now on; IF NOT EXISTS because the key cache used to create it on first use.
  DROP TRIGGER auth_generation_key_update;
  DROP TRIGGER auth_generation_key_delete;
  DROP TRIGGER auth_generation_account;
  DROP TRIGGER auth_generation_account_delete;
  ALTER TABLE service_state DROP COLUMN auth_generation;
  CREATE TABLE IF NOT EXISTS auth_generation (id INTEGER PRIMARY KEY CHECK (id = 1), gen INTEGER NOT NULL);
  INSERT OR IGNORE INTO auth_generation (id, gen) VALUES (1, 0);
  CREATE TRIGGER IF NOT EXISTS auth_gen_key_update AFTER UPDATE OF revoked_at, account_id, key_hash ON api_keys BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_key_delete AFTER DELETE ON api_keys BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_account_update AFTER UPDATE OF plan, deleted_at, created_at ON accounts BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_account_delete AFTER DELETE ON accounts BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_tos_insert AFTER INSERT ON tos_documents BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_tos_update AFTER UPDATE ON tos_documents BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_tos_delete AFTER DELETE ON tos_documents BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_acceptance_insert AFTER INSERT ON tos_acceptances BEGIN ${BUMP} END;
  CREATE TRIGGER IF NOT EXISTS auth_gen_acceptance_delete AFTER DELETE ON tos_acceptances BEGIN ${BUMP} END;
  `,
  `
  -- Saved custom regions (geo=region:<name>): one name per account, the members' keys as saved.
  CREATE TABLE saved_regions (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    members TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (account_id, name)
  );
  `,
  `
  -- A sign-in identity belongs to at most one live account. A soft-deleted account keeps its
  -- identity until the purge (for the record) without holding it: the same person signing in
  -- again gets a fresh account instead of a unique-constraint failure.
  DROP INDEX accounts_subject;
  CREATE UNIQUE INDEX accounts_subject ON accounts(oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL AND deleted_at IS NULL;
  `,
  `
  -- Saved regions' members stored parsed: the level and a JSON array of the FIPS codes instead of
  -- the keys joined by ";" (src/store/accounts/shared/regions.ts). Every saved text was written
  -- from resolved keys of one level ("county:06001;county:06013"), so the level is the part before
  -- the first ":" and the codes are what is left once "<level>:" is taken out. SQLite cannot
  -- change a column's type, so the table is rebuilt (nothing refers to it).
  CREATE TABLE saved_regions_parsed (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    level TEXT NOT NULL,
    member_fips TEXT NOT NULL CHECK (json_valid(member_fips) AND json_type(member_fips) = 'array'),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (account_id, name)
  );
  INSERT INTO saved_regions_parsed (id, account_id, name, level, member_fips, created_at, updated_at)
    SELECT id, account_id, name, substr(members, 1, instr(members, ':') - 1),
      '["' || replace(replace(members, substr(members, 1, instr(members, ':')), ''), ';', '","') || '"]',
      created_at, updated_at
    FROM saved_regions;
  DROP TABLE saved_regions;
  ALTER TABLE saved_regions_parsed RENAME TO saved_regions;
  `,
];
