// The accounts store bundle registered on ctx.stores at boot:
//   stores.accounts  AccountsStore: PostgreSQL when DATABASE_URL is set, else SQLite at DATABASE_PATH
//   stores.identity  IdentityVerifier (dashboard sign-in tokens), absent when OIDC is not configured
//   stores.stripe    Stripe SDK client, absent when billing is not configured
import type Stripe from 'stripe';
import { signInOf, type Config } from '../../config.js';
import { createStripe } from './stripe-client.js';
import { openAccountsDb } from './db.js';
import { IdentityVerifier } from './identity.js';
import { PostgresAccountStore } from './postgres/store.js';
import { SqliteAccountStore } from './sqlite-store.js';
import type { AccountsStore } from './store.js';

export type { AccountsStore, DatabaseHealth } from './store.js';
export { SqliteAccountStore } from './sqlite-store.js';
export { PostgresAccountStore } from './postgres/store.js';
/** The SQLite store under its older name (tests and tools that open a file directly). */
export { SqliteAccountStore as AccountStore } from './sqlite-store.js';

export interface AccountStores {
  accounts: AccountsStore;
  identity?: IdentityVerifier;
  stripe?: Stripe;
}

/**
 * The configured accounts store. PostgreSQL connects lazily (migrations run on first use), so an
 * unreachable database does not stop the boot: account operations answer 503 until it is back.
 */
export function openAccountsStore(config: Config): AccountsStore {
  if (config.DATABASE_URL) {
    return new PostgresAccountStore({
      url: config.DATABASE_URL,
      poolSize: config.DATABASE_POOL_SIZE,
      leaseTtlMs: config.CONCURRENCY_LEASE_TTL_MS,
      pollMs: config.AUTH_GENERATION_POLL_MS,
    });
  }
  return new SqliteAccountStore(openAccountsDb(config.DATABASE_PATH));
}

export function openAccountStores(config: Config): AccountStores {
  const stores: AccountStores = { accounts: openAccountsStore(config) };
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
