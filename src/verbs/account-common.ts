// Helpers shared by the account operations (not an operation itself): the signed-in account,
// input parsing into the 422 shape, and the public payloads of accounts and keys.
import type { z } from 'zod';
import { parseInput as parseValidated } from '../domain/validation.js';
import { AppError } from '../domain/errors.js';
import { planOf } from '../domain/plans.js';
import type { AccountRow } from '../store/accounts/accounts-repo.js';
import type { KeyRow } from '../store/accounts/keys-repo.js';
import type { AccountsStore } from '../store/accounts/store.js';
import type { VerbContext } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** WWW-Authenticate for dashboard (billing/account) 401s, RFC 6750 §3. */
export function bearerChallenge(error?: 'invalid_token', description?: string): string {
  const parts = ['Bearer realm="census-data-service"'];
  if (error) parts.push(`error="${error}"`);
  if (description) parts.push(`error_description="${description.replace(/["\\]/g, '')}"`);
  return parts.join(', ');
}

export function invalidToken(detail: string, withError = true): AppError {
  return new AppError('invalid-token', detail, {
    headers: { 'WWW-Authenticate': withError ? bearerChallenge('invalid_token', detail) : bearerChallenge() },
  });
}

/** The signed-in account of an account operation; a deleted account reads as signed out. */
export async function signedInAccount(ctx: VerbContext): Promise<{ store: AccountsStore; account: AccountRow }> {
  const store = storeOf(ctx.stores, 'accounts');
  if (!ctx.caller) throw invalidToken('Sign in to the dashboard first.', false);
  const account = await store.getAccount(ctx.caller.accountId);
  if (!account) throw invalidToken('The account for this sign-in no longer exists.');
  return { store, account };
}

/** Account operations take JSON bodies: their field errors read `body → name`. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where = 'body'): z.output<S> {
  return parseValidated(schema, input, where);
}

export interface KeyPayload {
  id: string;
  name: string;
  prefix: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  replaced_by: string | null;
}

export function keyPayload(k: KeyRow): KeyPayload {
  return {
    id: k.id,
    name: k.name,
    prefix: k.display_prefix,
    status: k.revoked_at === null ? 'active' : 'revoked',
    created_at: iso(k.created_at)!,
    revoked_at: iso(k.revoked_at),
    last_used_at: iso(k.last_used_at),
    replaced_by: k.replaced_by,
  };
}

export function notFound(what: string): AppError {
  return new AppError('not-found', `${what} not found.`);
}

export function planPayload(planId: string) {
  const p = planOf(planId);
  return { id: p.id, name: p.name, features: p.features, limits: p.limits };
}
