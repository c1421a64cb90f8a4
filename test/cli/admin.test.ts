import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/domain/keys.js';
import { openAccountsDb } from '../../src/store/accounts/db.js';
import { REPO_ROOT } from '../support/paths.js';
import { tempDbPath } from '../store/accounts/fixtures.js';

const run = promisify(execFile);

// Vitest puts Vite's BASE_URL='/' into process.env; the CLI would (rightly) reject it as a URL.
const { BASE_URL: _vite, ...parentEnv } = process.env;

function admin(db: string, ...args: string[]) {
  return run('npm', ['run', '--silent', 'admin', '--', ...args], {
    cwd: REPO_ROOT,
    env: { ...parentEnv, DATABASE_PATH: db, LOG_LEVEL: 'info', npm_config_loglevel: 'silent' },
    timeout: 60_000,
  });
}

describe('admin CLI', () => {
  it('keys create prints the new key alone on stdout; the database holds only its hash', async () => {
    const db = tempDbPath();
    const { stdout } = await admin(db, 'keys', 'create', '--email', 'cli@example.com', '--plan', 'pro');
    expect(stdout).toMatch(/^svc_live_[0-9A-Za-z]{32}\n$/);
    const key = stdout.trim();
    const conn = openAccountsDb(db);
    const row = conn
      .prepare('SELECT a.plan, a.email FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?')
      .get(hashApiKey(key));
    expect(row).toEqual({ plan: 'pro', email: 'cli@example.com' });
    conn.close();
    // Same e-mail again: same account, plan updated, a second key.
    const second = await admin(db, 'keys', 'create', '--email', 'cli@example.com', '--plan', 'business');
    expect(second.stdout).toMatch(/^svc_live_[0-9A-Za-z]{32}\n$/);
    expect(second.stdout).not.toBe(stdout);
    const c2 = openAccountsDb(db);
    expect(c2.prepare('SELECT count(*) AS n, max(plan) AS plan FROM accounts').get()).toEqual({ n: 1, plan: 'business' });
    c2.close();
    // Revoke by the full key; JSON on stdout.
    const revoked = await admin(db, 'keys', 'revoke', key);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ status: 'revoked' });
  }, 120_000);

  it('a bad plan exits non-zero with the reason on stderr and nothing on stdout', async () => {
    const db = tempDbPath();
    const e = (await admin(db, 'keys', 'create', '--email', 'x@example.com', '--plan', 'gold').catch((x: unknown) => x)) as {
      code: number;
      stdout: string;
      stderr: string;
    };
    expect(e.code).not.toBe(0);
    expect(e.stdout).toBe('');
    expect(e.stderr).toMatch(/plan/);
  }, 60_000);
});
