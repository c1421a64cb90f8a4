// The accounts store bundle registered on ctx.stores at boot:
//   stores.accounts  AccountStore (SQLite + in-process concurrency counter)
//   stores.identity  IdentityVerifier (dashboard sign-in tokens), absent when OIDC is not configured
//   stores.stripe    Stripe SDK client, absent when billing is not configured
import type Stripe from 'stripe';
import { signInOf, type Config } from '../../config.js';
import { ConcurrencyLimiter } from '../../domain/limits/concurrency.js';
import type { Stores } from '../../context/stores.js';
import { createStripe } from './stripe-client.js';
import { closeAccountsDb, openAccountsDb, stmt, type Db } from './db.js';
import { IdentityVerifier } from './identity.js';
import { authGeneration } from './key-cache.js';

export interface DatabaseHealth {
  ok: boolean;
  /** Why not, for operators (/health): the SQLite or file-system error code. */
  reason?: string;
}

const PROBE_EVERY_MS = 1_000;

export class AccountStore {
  readonly concurrency = new ConcurrencyLimiter();
  private probe: { at: number; health: DatabaseHealth } | undefined;
  constructor(readonly db: Db) {}

  /**
   * For /health: a real write (one row of service_state), because a full disk or a read-only file
   * still answers SELECTs. At most one probe per second however often the balancer polls; every
   * poll after a fault probes again, so health recovers by itself when the fault goes.
   */
  health(now = Date.now()): DatabaseHealth {
    if (this.probe && this.probe.health.ok && now - this.probe.at < PROBE_EVERY_MS) return this.probe.health;
    let health: DatabaseHealth;
    try {
      stmt(this.db, 'UPDATE service_state SET health_probe_at = ? WHERE id = 1').run(now);
      health = { ok: true };
    } catch (e) {
      health = { ok: false, reason: String((e as { code?: string }).code ?? (e as Error).name) };
    }
    this.probe = { at: now, health };
    return health;
  }

  ping(): boolean {
    return this.health().ok;
  }

  /** The key cache's generation (migration 4 triggers; any process): the MCP caller cache reads it. */
  authGeneration(): number {
    return authGeneration(this.db);
  }

  close(): void {
    closeAccountsDb(this.db);
  }
}

export interface AccountStores {
  accounts: AccountStore;
  identity?: IdentityVerifier;
  stripe?: Stripe;
}

export function openAccountStores(config: Config): AccountStores {
  const stores: AccountStores = { accounts: new AccountStore(openAccountsDb(config.DATABASE_PATH)) };
  // The development provider (DEV_IDP) is verified like any other: through its discovery document
  // and JWKS, served by this same process once it listens.
  const signIn = signInOf(config);
  if (signIn.mode !== 'none') {
    stores.identity = new IdentityVerifier({
      issuer: signIn.issuer,
      audience: signIn.audiences,
      jwksUrl: signIn.mode === 'external' ? config.OIDC_JWKS_URL : undefined,
    });
  }
  const stripe = createStripe(config);
  if (stripe) stores.stripe = stripe;
  return stores;
}
