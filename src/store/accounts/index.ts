// The accounts store bundle registered on ctx.stores at boot:
//   stores.accounts  AccountStore (SQLite + in-process concurrency counter)
//   stores.identity  IdentityVerifier (dashboard sign-in tokens), absent when OIDC is not configured
//   stores.stripe    Stripe SDK client, absent when billing is not configured
import type Stripe from 'stripe';
import { signInOf, type Config } from '../../config.js';
import { ConcurrencyLimiter } from '../../domain/limits/concurrency.js';
import { createStripe } from './stripe-client.js';
import { openAccountsDb, type Db } from './db.js';
import { IdentityVerifier } from './identity.js';

export class AccountStore {
  readonly concurrency = new ConcurrencyLimiter();
  constructor(readonly db: Db) {}
  /** For /health: false when the file is gone or locked beyond busy_timeout. */
  ping(): boolean {
    try {
      return this.db.prepare('SELECT 1 AS ok').get() !== undefined;
    } catch {
      return false;
    }
  }
  close(): void {
    this.db.close();
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
    stores.identity = new IdentityVerifier({ issuer: signIn.issuer, audience: signIn.audiences, jwksUrl: signIn.mode === 'external' ? config.OIDC_JWKS_URL : undefined });
  }
  const stripe = createStripe(config);
  if (stripe) stores.stripe = stripe;
  return stores;
}



