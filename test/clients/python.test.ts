// The Python client (clients/python) against the real service on a real port over the test build:
// pytest asks the issue's ten questions through the client and through curl and compares the
// numbers, then two Free accounts go past their per-minute burst and the client must wait as told.
// Needs Debian's python3 with pandas, geopandas, pytest and requests (.ci/run installs them); in
// CI a missing one fails the test, elsewhere the test is skipped with the install command.
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/browser.js';
import { verbContext } from '../support/context.js';
import { startLocalIdp, type LocalIdp } from '../support/oidc.js';
import { REPO_ROOT } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';
import { adminIssueKey } from '../../src/verbs/account-admin-issue-key.js';

const run = promisify(execFile);
const CLIENT_DIR = path.join(REPO_ROOT, 'clients', 'python');
const INSTALL =
  'apt-get install -y python3-pandas python3-geopandas python3-pytest python3-requests python3-matplotlib python3-setuptools python3-wheel';

/** Debian's interpreter first: pyenv or a virtualenv earlier on PATH does not see apt's packages. */
function findPython(): string | null {
  for (const cmd of [process.env.PYTHON, '/usr/bin/python3', 'python3']) {
    if (!cmd) continue;
    const probe = spawnSync(cmd, ['-c', 'import pandas, requests, pytest, geopandas'], { stdio: 'ignore' });
    if (probe.status === 0) return cmd;
  }
  return null;
}

const python = findPython();
const inCI = process.env.CI === 'true';
const missing = `python3 with pandas, geopandas, pytest and requests was not found. Install them with \`${INSTALL}\` (.ci/run does), or set PYTHON.`;
if (!python && !inCI) console.warn(`test/clients/python.test.ts skipped: ${missing}`);

describe.skipIf(!python && !inCI)('Python client against the real service', () => {
  let idp: LocalIdp;
  let svc: Service;
  let base = '';
  let token = '';
  const freeKeys: string[] = [];
  // The server's clock, moved only for the burst run (so its minute window ends soon after).
  let shiftMs = 0;

  beforeAll(async () => {
    if (!python) return;
    idp = await startLocalIdp();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    svc = await startService({
      config: { PORT: port, BASE_URL: base, OIDC_ISSUER: idp.issuer, OIDC_AUDIENCE: idp.audience, OIDC_JWKS_URL: idp.jwksUrl },
      now: () => new Date(Date.now() + shiftMs),
    });
    await svc.app.listen({ port, host: '127.0.0.1' });
    // The Business account (made with its key by the admin operation) signs in for the first time:
    // its verified e-mail links the identity, so the token's saved regions are the key's.
    token = await idp.sign({ sub: 'pyclient-analyst', email: 'business@example.org', email_verified: true }, { expiresIn: '30m' });
    // Two more Free accounts: one for the burst run beside the plan's own, one to spend its month.
    for (const email of ['free-2@example.org', 'free-3@example.org']) {
      const issued = await adminIssueKey({ ctx: verbContext(svc.stores, { plan: null }), input: { email, plan: 'free' } });
      freeKeys.push(issued.data.key);
    }
  });
  afterAll(async () => {
    await svc?.close();
    await idp?.close();
  });

  async function pytest(args: string[]): Promise<string> {
    if (!python) throw new Error(missing);
    const env = {
      ...process.env,
      CDS_BASE_URL: base,
      CDS_API_KEY: svc.keys.business,
      CDS_TOKEN: token,
      CDS_FREE_API_KEY: svc.keys.free,
      CDS_FREE_API_KEY_2: freeKeys[0],
      CDS_FREE_API_KEY_3: freeKeys[1],
      PYTHONDONTWRITEBYTECODE: '1',
    };
    try {
      const { stdout } = await run(python, ['-m', 'pytest', 'tests', '-p', 'no:cacheprovider', '-rs', ...args], {
        cwd: CLIENT_DIR,
        env,
        maxBuffer: 16 * 1024 * 1024,
        timeout: 110_000, // a run that hangs is killed before the test's own limit, its output kept
      });
      return stdout;
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`pytest ${args.join(' ')} failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`.slice(-20_000));
    }
  }

  it('answers the ten questions through the client and through curl with identical numbers', async () => {
    const out = await pytest(['-m', 'not burst']);
    expect(Number(/(\d+) passed/.exec(out)?.[1])).toBeGreaterThanOrEqual(36);
    expect(out).not.toMatch(/skipped|failed/i);
  }, 120_000);

  it('waits as told when a Free key is past its burst, instead of failing', async () => {
    // Move the server's clock so that its minute window ends 15 s from now: the run spends two
    // Free accounts' 60 requests in that window, and the client then waits the few seconds left.
    const now = Date.now();
    shiftMs = (((45_000 - (now % 60_000)) % 60_000) + 60_000) % 60_000;
    const out = await pytest(['-m', 'burst']);
    expect(out).toMatch(/\b1 passed\b/);
    expect(out).not.toMatch(/skipped|failed/i);
  }, 120_000);
});
