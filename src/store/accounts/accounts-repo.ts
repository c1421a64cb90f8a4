// Account rows on SQLite. Every read filters `deleted_at IS NULL`: a soft-deleted account is
// invisible to the service (its keys stop working) until the retention job purges it. The
// transactions' logic is shared with PostgreSQL (shared/accounts.ts); accountStep is SQLite's
// statement for each of their steps.
import { stmt, type Db } from './db.js';
import { newId } from './ids.js';
import { redeemInvite } from './invites-repo.js';
import { softDeleteProgram, type AccountRow, type AccountStep, type NewAccount } from './shared/accounts.js';
import { runSync, type Statement } from './shared/program.js';

export type { AccountRow } from './shared/accounts.js';

export function createAccount(db: Db, a: NewAccount): AccountRow {
  const id = newId('acc');
  stmt(
    db,
    `INSERT INTO accounts (id, email, plan, oidc_issuer, oidc_subject, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, a.email, a.plan, a.issuer ?? null, a.subject ?? null, a.now, a.now);
  return getAccount(db, id)!;
}

export function getAccount(db: Db, id: string): AccountRow | undefined {
  return stmt(db, 'SELECT * FROM accounts WHERE id = ? AND deleted_at IS NULL').get(id) as AccountRow | undefined;
}

export function findAccountBySubject(db: Db, issuer: string, subject: string): AccountRow | undefined {
  return stmt(db, 'SELECT * FROM accounts WHERE oidc_issuer = ? AND oidc_subject = ? AND deleted_at IS NULL').get(issuer, subject) as
    AccountRow | undefined;
}

/** Case-insensitive: identity providers do not agree on e-mail case. Oldest first. */
export function findAccountByEmail(db: Db, email: string): AccountRow | undefined {
  return stmt(db, 'SELECT * FROM accounts WHERE lower(email) = lower(?) AND deleted_at IS NULL ORDER BY created_at LIMIT 1').get(email) as
    AccountRow | undefined;
}

export function findAccountByStripeCustomer(db: Db, customerId: string): AccountRow | undefined {
  return stmt(db, 'SELECT * FROM accounts WHERE stripe_customer_id = ? AND deleted_at IS NULL').get(customerId) as AccountRow | undefined;
}

export function linkSubject(db: Db, id: string, issuer: string, subject: string, now: number): void {
  stmt(db, 'UPDATE accounts SET oidc_issuer = ?, oidc_subject = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL').run(
    issuer,
    subject,
    now,
    id,
  );
}

export function updateProfile(
  db: Db,
  id: string,
  p: { name?: string | null; organization?: string | null },
  now: number,
): AccountRow | undefined {
  const cur = getAccount(db, id);
  if (!cur) return undefined;
  stmt(db, 'UPDATE accounts SET name = ?, organization = ?, updated_at = ? WHERE id = ?').run(
    p.name === undefined ? cur.name : p.name,
    p.organization === undefined ? cur.organization : p.organization,
    now,
    id,
  );
  return getAccount(db, id);
}

export function setPlan(db: Db, id: string, plan: string, now: number): boolean {
  return stmt(db, 'UPDATE accounts SET plan = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL').run(plan, now, id).changes === 1;
}

export function setStripeCustomer(db: Db, id: string, customerId: string, now: number): void {
  stmt(db, 'UPDATE accounts SET stripe_customer_id = ?, updated_at = ? WHERE id = ?').run(customerId, now, id);
}

export function markActivated(db: Db, id: string, now: number): void {
  stmt(db, 'UPDATE accounts SET activated_at = COALESCE(activated_at, ?), updated_at = ? WHERE id = ?').run(now, now, id);
}

export function softDeleteAccount(db: Db, id: string, now: number): boolean {
  return db.transaction(() => runSync(softDeleteProgram(id, now), (s) => accountStep(db, s))).immediate();
}

export function accountStep(db: Db, s: Statement<AccountStep>): unknown {
  switch (s.op) {
    case 'getAccount':
      return getAccount(db, s.id);
    case 'findAccountBySubject':
      return findAccountBySubject(db, s.issuer, s.subject);
    case 'findAccountByEmail':
      return findAccountByEmail(db, s.email);
    case 'createAccount':
      return createAccount(db, s.a);
    case 'linkSubject':
      return linkSubject(db, s.id, s.issuer, s.subject, s.now);
    case 'setPlan':
      return setPlan(db, s.id, s.plan, s.now);
    case 'markActivated':
      return markActivated(db, s.id, s.now);
    case 'redeemInvite':
      return redeemInvite(db, s.code, s.accountId, s.now);
    case 'markDeleted':
      return (
        stmt(db, 'UPDATE accounts SET deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL').run(s.now, s.now, s.id)
          .changes === 1
      );
    case 'revokeAccountKeys':
      stmt(db, 'UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL').run(s.now, s.accountId);
      return undefined;
  }
}
