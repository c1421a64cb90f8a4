// Versioned schema of the PostgreSQL accounts store. Append only: never edit a migration that has
// shipped. Applied at first use by every replica inside one transaction holding an advisory lock,
// so replicas starting together cannot race; `schema_migrations` records what was applied. The
// tables mirror the SQLite schema (src/store/accounts/migrations.ts, times in epoch ms) so the
// two implementations answer alike; what PostgreSQL adds is the shared concurrency leases and
// cds_admit(), which does a request's whole admission in one statement.
export const PG_MIGRATIONS: readonly string[] = [
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
    activated_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
  );
  CREATE UNIQUE INDEX accounts_subject ON accounts(oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL;
  CREATE INDEX accounts_email ON accounts(lower(email));
  CREATE INDEX accounts_deleted ON accounts(deleted_at) WHERE deleted_at IS NOT NULL;

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    display_prefix TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT,
    last_used_at BIGINT,
    replaced_by TEXT
  );
  CREATE INDEX api_keys_account ON api_keys(account_id);

  CREATE TABLE usage_periods (
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    units BIGINT NOT NULL DEFAULT 0,
    requests BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period)
  );
  CREATE TABLE usage_minutes (
    account_id TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    requests BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, window_start)
  );
  CREATE TABLE request_log (
    id BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL,
    key_id TEXT,
    at BIGINT NOT NULL,
    route TEXT NOT NULL,
    units BIGINT NOT NULL,
    ip TEXT,
    ip_anonymized BOOLEAN NOT NULL DEFAULT FALSE
  );
  CREATE INDEX request_log_at ON request_log(at);
  CREATE INDEX request_log_account ON request_log(account_id, at);

  CREATE TABLE tos_documents (
    version TEXT PRIMARY KEY,
    effective_at BIGINT NOT NULL,
    url TEXT,
    sha256 TEXT,
    created_at BIGINT NOT NULL
  );
  CREATE TABLE tos_acceptances (
    id BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    version TEXT NOT NULL,
    accepted_at BIGINT NOT NULL,
    ip TEXT,
    user_agent TEXT,
    ip_anonymized BOOLEAN NOT NULL DEFAULT FALSE
  );
  CREATE INDEX tos_acceptances_account ON tos_acceptances(account_id, version);

  CREATE TABLE invite_codes (
    code_hash TEXT PRIMARY KEY,
    plan TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    used_by TEXT
  );

  CREATE TABLE stripe_events (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    created BIGINT NOT NULL,
    account_id TEXT,
    outcome TEXT NOT NULL,
    processed_at BIGINT NOT NULL
  );
  CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    customer_id TEXT,
    plan TEXT NOT NULL,
    interval TEXT,
    status TEXT NOT NULL,
    current_period_end BIGINT,
    last_event_created BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX subscriptions_account ON subscriptions(account_id);

  CREATE TABLE dashboard_sessions (
    id_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    csrf_token TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX dashboard_sessions_account ON dashboard_sessions(account_id);
  CREATE INDEX dashboard_sessions_expires ON dashboard_sessions(expires_at);

  CREATE TABLE service_state (id INTEGER PRIMARY KEY CHECK (id = 1), health_probe_at BIGINT);
  INSERT INTO service_state (id) VALUES (1);

  -- The auth generation (as on SQLite): moved by statement triggers on every write that can change
  -- a key's standing, whichever replica or tool wrote; replicas poll it (AUTH_GENERATION_POLL_MS).
  CREATE TABLE auth_generation (id INTEGER PRIMARY KEY CHECK (id = 1), gen BIGINT NOT NULL);
  INSERT INTO auth_generation (id, gen) VALUES (1, 0);
  CREATE FUNCTION cds_bump_auth_generation() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE auth_generation SET gen = gen + 1 WHERE id = 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER auth_gen_key_update AFTER UPDATE OF revoked_at, account_id, key_hash ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION cds_bump_auth_generation();
  CREATE TRIGGER auth_gen_key_delete AFTER DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION cds_bump_auth_generation();
  CREATE TRIGGER auth_gen_account_update AFTER UPDATE OF plan, deleted_at, created_at ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION cds_bump_auth_generation();
  CREATE TRIGGER auth_gen_account_delete AFTER DELETE ON accounts FOR EACH STATEMENT EXECUTE FUNCTION cds_bump_auth_generation();
  CREATE TRIGGER auth_gen_tos AFTER INSERT OR UPDATE OR DELETE ON tos_documents
    FOR EACH STATEMENT EXECUTE FUNCTION cds_bump_auth_generation();
  CREATE TRIGGER auth_gen_acceptance AFTER INSERT OR DELETE ON tos_acceptances
    FOR EACH STATEMENT EXECUTE FUNCTION cds_bump_auth_generation();

  -- Concurrency slots shared by all replicas. A replica renews the slots it holds; one that dies
  -- stops renewing and its slots lapse at expires_at (CONCURRENCY_LEASE_TTL_MS).
  CREATE TABLE concurrency_leases (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX concurrency_leases_account ON concurrency_leases(account_id, expires_at);

  -- One request's admission, in the order concurrency -> monthly units -> burst. The per-account
  -- advisory lock serializes admissions of one account across replicas until COMMIT (accounts do
  -- not wait for each other); callers pass a batch sorted by account so two batches always take
  -- their locks in the same order. A refused request leaves no trace but the counter rows.
  CREATE FUNCTION cds_admit(
    p_account TEXT, p_key TEXT, p_period TEXT, p_minute BIGINT, p_cost BIGINT, p_monthly BIGINT, p_burst BIGINT,
    p_route TEXT, p_ip TEXT, p_now BIGINT, p_lease TEXT, p_max_concurrent INTEGER, p_lease_expires BIGINT
  ) RETURNS TABLE (outcome TEXT, monthly_used BIGINT, burst_used BIGINT, in_flight INTEGER, log_id BIGINT)
  LANGUAGE plpgsql AS $$
  DECLARE
    m BIGINT;
    b BIGINT;
    n INTEGER;
    lid BIGINT;
  BEGIN
    -- Commit without waiting for the WAL flush (this transaction only): durable against a replica's
    -- crash (the database has the row the moment it answers), not against the database server's own
    -- crash, which may lose the last fraction of a second of counts: the trade SQLite makes with
    -- synchronous=NORMAL, for counters and request logs only. Keys, accounts and billing commit
    -- synchronously.
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_advisory_xact_lock(hashtextextended(p_account, 0));
    -- Expired slots (of a replica that died) are not counted; they are swept when the cap is hit.
    SELECT count(*) INTO n FROM concurrency_leases WHERE account_id = p_account AND expires_at > p_now;
    IF p_lease IS NOT NULL THEN
      IF n >= p_max_concurrent THEN
        DELETE FROM concurrency_leases WHERE account_id = p_account AND expires_at <= p_now;
        RETURN QUERY SELECT 'concurrency'::TEXT,
          coalesce((SELECT u.units FROM usage_periods u WHERE u.account_id = p_account AND u.period = p_period), 0),
          coalesce((SELECT w.requests FROM usage_minutes w WHERE w.account_id = p_account AND w.window_start = p_minute), 0), n, NULL::BIGINT;
        RETURN;
      END IF;
      INSERT INTO concurrency_leases (id, account_id, expires_at) VALUES (p_lease, p_account, p_lease_expires);
      n := n + 1;
    END IF;
    -- The counter rows usually exist: UPDATE first, create the row only when it is missing.
    UPDATE usage_periods u SET units = u.units + p_cost, requests = u.requests + 1
      WHERE u.account_id = p_account AND u.period = p_period AND u.units + p_cost <= p_monthly RETURNING u.units INTO m;
    IF m IS NULL THEN
      INSERT INTO usage_periods (account_id, period) VALUES (p_account, p_period) ON CONFLICT DO NOTHING;
      UPDATE usage_periods u SET units = u.units + p_cost, requests = u.requests + 1
        WHERE u.account_id = p_account AND u.period = p_period AND u.units + p_cost <= p_monthly RETURNING u.units INTO m;
    END IF;
    IF m IS NULL THEN
      IF p_lease IS NOT NULL THEN
        DELETE FROM concurrency_leases WHERE id = p_lease;
        n := n - 1;
      END IF;
      RETURN QUERY SELECT 'monthly'::TEXT,
        (SELECT u.units FROM usage_periods u WHERE u.account_id = p_account AND u.period = p_period),
        coalesce((SELECT w.requests FROM usage_minutes w WHERE w.account_id = p_account AND w.window_start = p_minute), 0), n, NULL::BIGINT;
      RETURN;
    END IF;
    UPDATE usage_minutes w SET requests = w.requests + 1
      WHERE w.account_id = p_account AND w.window_start = p_minute AND w.requests + 1 <= p_burst RETURNING w.requests INTO b;
    IF b IS NULL THEN
      INSERT INTO usage_minutes (account_id, window_start) VALUES (p_account, p_minute) ON CONFLICT DO NOTHING;
      UPDATE usage_minutes w SET requests = w.requests + 1
        WHERE w.account_id = p_account AND w.window_start = p_minute AND w.requests + 1 <= p_burst RETURNING w.requests INTO b;
    END IF;
    IF b IS NULL THEN
      UPDATE usage_periods u SET units = u.units - p_cost, requests = u.requests - 1 WHERE u.account_id = p_account AND u.period = p_period;
      IF p_lease IS NOT NULL THEN
        DELETE FROM concurrency_leases WHERE id = p_lease;
        n := n - 1;
      END IF;
      RETURN QUERY SELECT 'burst'::TEXT, m - p_cost,
        (SELECT w.requests FROM usage_minutes w WHERE w.account_id = p_account AND w.window_start = p_minute), n, NULL::BIGINT;
      RETURN;
    END IF;
    INSERT INTO request_log (account_id, key_id, at, route, units, ip) VALUES (p_account, p_key, p_now, p_route, p_cost, p_ip)
      RETURNING id INTO lid;
    RETURN QUERY SELECT 'ok'::TEXT, m, b, n, lid;
  END $$;

  -- Slots given back after responses, batched; asynchronous commit as for cds_admit (a lost
  -- release only keeps a slot until its expiry).
  CREATE FUNCTION cds_release(p_ids TEXT[]) RETURNS INTEGER LANGUAGE plpgsql AS $$
  DECLARE
    n INTEGER;
  BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    DELETE FROM concurrency_leases WHERE id = ANY(p_ids);
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
  END $$;
  `,
  `
  -- Revocations reach replicas at once: the generation trigger also notifies (delivered at COMMIT)
  -- every replica listening on cds_auth_generation; the poll stays as the fallback for a listener
  -- connection that was lost.
  CREATE OR REPLACE FUNCTION cds_bump_auth_generation() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE auth_generation SET gen = gen + 1 WHERE id = 1;
    PERFORM pg_notify('cds_auth_generation', '');
    RETURN NULL;
  END $$;
  `,
  `
  -- Saved custom regions (geo=region:<name>), as in the SQLite schema.
  CREATE TABLE saved_regions (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    members TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
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
  -- cds_admit commits durably: it no longer turns synchronous_commit off for its transaction, so
  -- an admitted request's charge and log row are on disk before the request is answered, also
  -- across a crash or immediate stop of the database server (asynchronously, an immediate stop
  -- under load lost 3 of 2,773 answered requests' rows). One statement, so one WAL flush, per
  -- event-loop turn's batch of admissions. Same body otherwise; cds_release stays asynchronous (a
  -- lost release only keeps a slot until its expiry).
  CREATE OR REPLACE FUNCTION cds_admit(
    p_account TEXT, p_key TEXT, p_period TEXT, p_minute BIGINT, p_cost BIGINT, p_monthly BIGINT, p_burst BIGINT,
    p_route TEXT, p_ip TEXT, p_now BIGINT, p_lease TEXT, p_max_concurrent INTEGER, p_lease_expires BIGINT
  ) RETURNS TABLE (outcome TEXT, monthly_used BIGINT, burst_used BIGINT, in_flight INTEGER, log_id BIGINT)
  LANGUAGE plpgsql AS $$
  DECLARE
    m BIGINT;
    b BIGINT;
    n INTEGER;
    lid BIGINT;
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_account, 0));
    -- Expired slots (of a replica that died) are not counted; they are swept when the cap is hit.
    SELECT count(*) INTO n FROM concurrency_leases WHERE account_id = p_account AND expires_at > p_now;
    IF p_lease IS NOT NULL THEN
      IF n >= p_max_concurrent THEN
        DELETE FROM concurrency_leases WHERE account_id = p_account AND expires_at <= p_now;
        RETURN QUERY SELECT 'concurrency'::TEXT,
          coalesce((SELECT u.units FROM usage_periods u WHERE u.account_id = p_account AND u.period = p_period), 0),
          coalesce((SELECT w.requests FROM usage_minutes w WHERE w.account_id = p_account AND w.window_start = p_minute), 0), n, NULL::BIGINT;
        RETURN;
      END IF;
      INSERT INTO concurrency_leases (id, account_id, expires_at) VALUES (p_lease, p_account, p_lease_expires);
      n := n + 1;
    END IF;
    -- The counter rows usually exist: UPDATE first, create the row only when it is missing.
    UPDATE usage_periods u SET units = u.units + p_cost, requests = u.requests + 1
      WHERE u.account_id = p_account AND u.period = p_period AND u.units + p_cost <= p_monthly RETURNING u.units INTO m;
    IF m IS NULL THEN
      INSERT INTO usage_periods (account_id, period) VALUES (p_account, p_period) ON CONFLICT DO NOTHING;
      UPDATE usage_periods u SET units = u.units + p_cost, requests = u.requests + 1
        WHERE u.account_id = p_account AND u.period = p_period AND u.units + p_cost <= p_monthly RETURNING u.units INTO m;
    END IF;
    IF m IS NULL THEN
      IF p_lease IS NOT NULL THEN
        DELETE FROM concurrency_leases WHERE id = p_lease;
        n := n - 1;
      END IF;
      RETURN QUERY SELECT 'monthly'::TEXT,
        (SELECT u.units FROM usage_periods u WHERE u.account_id = p_account AND u.period = p_period),
        coalesce((SELECT w.requests FROM usage_minutes w WHERE w.account_id = p_account AND w.window_start = p_minute), 0), n, NULL::BIGINT;
      RETURN;
    END IF;
    UPDATE usage_minutes w SET requests = w.requests + 1
      WHERE w.account_id = p_account AND w.window_start = p_minute AND w.requests + 1 <= p_burst RETURNING w.requests INTO b;
    IF b IS NULL THEN
      INSERT INTO usage_minutes (account_id, window_start) VALUES (p_account, p_minute) ON CONFLICT DO NOTHING;
      UPDATE usage_minutes w SET requests = w.requests + 1
        WHERE w.account_id = p_account AND w.window_start = p_minute AND w.requests + 1 <= p_burst RETURNING w.requests INTO b;
    END IF;
    IF b IS NULL THEN
      UPDATE usage_periods u SET units = u.units - p_cost, requests = u.requests - 1 WHERE u.account_id = p_account AND u.period = p_period;
      IF p_lease IS NOT NULL THEN
        DELETE FROM concurrency_leases WHERE id = p_lease;
        n := n - 1;
      END IF;
      RETURN QUERY SELECT 'burst'::TEXT, m - p_cost,
        (SELECT w.requests FROM usage_minutes w WHERE w.account_id = p_account AND w.window_start = p_minute), n, NULL::BIGINT;
      RETURN;
    END IF;
    INSERT INTO request_log (account_id, key_id, at, route, units, ip) VALUES (p_account, p_key, p_now, p_route, p_cost, p_ip)
      RETURNING id INTO lid;
    RETURN QUERY SELECT 'ok'::TEXT, m, b, n, lid;
  END $$;
  `,
  `
  -- Saved regions' members stored parsed, as in the SQLite schema: the level and a JSONB array of
  -- the FIPS codes instead of the keys joined by ";". Every saved text was written from resolved
  -- keys of one level ("county:06001;county:06013"): the level is the part before the first ":",
  -- the codes are each key with its "<level>:" taken out, in the saved order.
  ALTER TABLE saved_regions ADD COLUMN level TEXT, ADD COLUMN member_fips JSONB;
  UPDATE saved_regions SET
    level = split_part(members, ':', 1),
    member_fips = to_jsonb(regexp_split_to_array(replace(members, split_part(members, ':', 1) || ':', ''), ';'));
  ALTER TABLE saved_regions
    ALTER COLUMN level SET NOT NULL,
    ALTER COLUMN member_fips SET NOT NULL,
    ADD CONSTRAINT saved_regions_member_fips_array CHECK (jsonb_typeof(member_fips) = 'array'),
    DROP COLUMN members;
  `,
];
