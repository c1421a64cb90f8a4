// Account rows on PostgreSQL: the statements for the shared account programs
// (../shared/accounts.ts) and the single-statement operations. Every read skips soft-deleted
// accounts, like SQLite's accounts-repo.ts.
import { newId } from '../ids.js';
import type { AccountRow, AccountStep, NewAccount } from '../shared/accounts.js';
import type { Statement } from '../shared/program.js';
import type { Pg } from './connection.js';
import { redeemInvite } from './invites-repo.js';

export function getAccount(c: Pg, id: string) {
  return c.one<AccountRow>('SELECT * FROM accounts WHERE id = $1 AND deleted_at IS NULL', [id]);
}

/** Case-insensitive: identity providers do not agree on e-mail case. Oldest first. */
export function findAccountByEmail(c: Pg, email: string) {
  return c.one<AccountRow>('SELECT * FROM accounts WHERE lower(email) = lower($1) AND deleted_at IS NULL ORDER BY created_at LIMIT 1', [
    email,
  ]);
}

export function findAccountByStripeCustomer(c: Pg, customerId: string) {
  return c.one<AccountRow>('SELECT * FROM accounts WHERE stripe_customer_id = $1 AND deleted_at IS NULL', [customerId]);
}

export async function setPlan(c: Pg, id: string, plan: string, now: number): Promise<boolean> {
  return (await c.q('UPDATE accounts SET plan = $1, updated_at = $2 WHERE id = $3 AND deleted_at IS NULL', [plan, now, id])).rowCount === 1;
}

export async function setStripeCustomer(c: Pg, id: string, customerId: string, now: number): Promise<void> {
  await c.q('UPDATE accounts SET stripe_customer_id = $1, updated_at = $2 WHERE id = $3', [customerId, now, id]);
}

export function updateProfile(c: Pg, id: string, p: { name?: string | null; organization?: string | null }, now: number) {
  // CASE keeps an omitted field as it is; both fields in one statement, no read-modify-write race.
  return c.one<AccountRow>(
    `UPDATE accounts SET name = CASE WHEN $2 THEN $3 ELSE name END, organization = CASE WHEN $4 THEN $5 ELSE organization END,
       updated_at = $6 WHERE id = $1 AND deleted_at IS NULL RETURNING *`,
    [id, p.name !== undefined, p.name ?? null, p.organization !== undefined, p.organization ?? null, now],
  );
}

async function createAccount(c: Pg, a: NewAccount): Promise<AccountRow> {
  return (await c.one<AccountRow>(
    `INSERT INTO accounts (id, email, plan, oidc_issuer, oidc_subject, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING *`,
    [newId('acc'), a.email, a.plan, a.issuer ?? null, a.subject ?? null, a.now],
  ))!;
}

/** PostgreSQL's statement for each step of the shared account programs. */
export async function accountStep(c: Pg, s: Statement<AccountStep>): Promise<unknown> {
  switch (s.op) {
    case 'getAccount':
      return getAccount(c, s.id);
    case 'findAccountBySubject':
      return c.one<AccountRow>('SELECT * FROM accounts WHERE oidc_issuer = $1 AND oidc_subject = $2 AND deleted_at IS NULL', [
        s.issuer,
        s.subject,
      ]);
    case 'findAccountByEmail':
      return findAccountByEmail(c, s.email);
    case 'createAccount':
      return createAccount(c, s.a);
    case 'linkSubject':
      await c.q('UPDATE accounts SET oidc_issuer = $1, oidc_subject = $2, updated_at = $3 WHERE id = $4 AND deleted_at IS NULL', [
        s.issuer,
        s.subject,
        s.now,
        s.id,
      ]);
      return undefined;
    case 'setPlan':
      return setPlan(c, s.id, s.plan, s.now);
    case 'markActivated':
      await c.q('UPDATE accounts SET activated_at = COALESCE(activated_at, $1), updated_at = $1 WHERE id = $2', [s.now, s.id]);
      return undefined;
    case 'redeemInvite':
      return redeemInvite(c, s.code, s.accountId, s.now);
    case 'markDeleted':
      return (
        (await c.q('UPDATE accounts SET deleted_at = $1, updated_at = $1 WHERE id = $2 AND deleted_at IS NULL', [s.now, s.id])).rowCount ===
        1
      );
    case 'revokeAccountKeys':
      await c.q('UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL', [s.now, s.accountId]);
      return undefined;
  }
}
