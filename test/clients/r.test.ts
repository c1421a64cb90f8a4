// The R client (clients/r) against the real service, not mocks: `R CMD build` and
// `R CMD check --no-manual` of the package (offline: its network tests skip there), then the
// package's testthat tests with CDS_BASE_URL / CDS_API_KEY pointing at the whole service on a
// real loopback port over the test build. The ten questions of issue 38, the tidycensus port and
// geometry = TRUE compare the client's answers with plain HTTP to the same server (tests/testthat).
// The burst test runs on its own, with the server's clock set so that the minute window ends
// seconds after the Free key's burst is spent: the client's wait is the one the 429 tells.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/browser.js';
import { startLocalIdp, type LocalIdp } from '../support/oidc.js';
import { REPO_ROOT } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';

const PKG_DIR = path.join(REPO_ROOT, 'clients', 'r');
const R_PACKAGES = ['httr2', 'jsonlite', 'tibble', 'sf', 'testthat'];
const HOW_TO_INSTALL =
  'install R and the packages from Debian: apt-get install -y r-base-core r-cran-httr2 r-cran-jsonlite r-cran-tibble r-cran-sf r-cran-testthat (.ci/run does this)';

interface Run {
  code: number | null;
  out: string;
}

/** Runs a command without blocking the event loop (the service answers from this process). */
function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 180_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** Why R cannot run here (null when it can). */
async function whyNoR(): Promise<string | null> {
  const probe = `for (p in c(${R_PACKAGES.map((p) => `"${p}"`).join(', ')})) if (!requireNamespace(p, quietly = TRUE)) cat(p, "")`;
  const r = await run('Rscript', ['-e', probe], { timeoutMs: 60_000 }).catch(() => null);
  if (!r || r.code !== 0) return 'Rscript is not installed';
  const missing = r.out.trim();
  return missing ? `R packages missing: ${missing}` : null;
}

/** The environment without any CDS_* variable, plus `extra`. */
function envWith(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CDS_')) delete env[k];
  return { ...env, ...extra };
}

const noR = await whyNoR();
if (noR && process.env.CI !== 'true') console.warn(`test/clients/r.test.ts skipped: ${noR}; ${HOW_TO_INSTALL}`);

describe('R is available in CI', () => {
  it.runIf(process.env.CI === 'true')('has Rscript and the packages the client needs', () => {
    expect(noR, `${noR}; ${HOW_TO_INSTALL}`).toBeNull();
  });
});

describe.skipIf(noR !== null)('R client (clients/r) against the real service', () => {
  let svc: Service;
  let idp: LocalIdp;
  let base: string;
  let tmp: string;
  let lib: string;
  let token: string;
  // Added to the server's clock: moved forward once, before the burst test (below).
  let shift = 0;

  beforeAll(async () => {
    idp = await startLocalIdp();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    svc = await startService({
      config: { PORT: port, BASE_URL: base, OIDC_ISSUER: idp.issuer, OIDC_AUDIENCE: idp.audience, OIDC_JWKS_URL: idp.jwksUrl },
      now: () => new Date(Date.now() + shift),
    });
    await svc.app.listen({ port, host: '127.0.0.1' });
    // The first sign-in of a verified e-mail links the account the Business key belongs to, so
    // the regions it saves are usable with that key.
    token = await idp.sign({ sub: 'r-client', email: 'business@example.org', email_verified: true });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-rclient-'));
    lib = path.join(tmp, 'lib');
    fs.mkdirSync(lib);
  });

  afterAll(async () => {
    await svc?.close();
    await idp?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('R CMD check --no-manual passes with no ERROR or WARNING, and the package installs', async () => {
    const env = envWith({ _R_CHECK_CRAN_INCOMING_: 'false' });
    const built = await run('R', ['CMD', 'build', PKG_DIR], { cwd: tmp, env });
    expect(built.code, built.out).toBe(0);
    const tarball = fs.readdirSync(tmp).find((f) => /^censusdataservice_.*\.tar\.gz$/.test(f));
    expect(tarball, built.out).toBeDefined();
    const checked = await run('R', ['CMD', 'check', '--no-manual', tarball!], { cwd: tmp, env, timeoutMs: 240_000 });
    const status = /^Status: (.*)$/m.exec(checked.out)?.[1];
    expect(status, checked.out).toBeDefined();
    expect(status, checked.out).not.toMatch(/ERROR|WARNING/);
    expect(checked.code, checked.out).toBe(0);
    const installed = await run('R', ['CMD', 'INSTALL', `--library=${lib}`, tarball!], { cwd: tmp, env });
    expect(installed.code, installed.out).toBe(0);
  }, 300_000);

  const testthat = (filter: string, invert: boolean) =>
    `library(testthat); library(censusdataservice, lib.loc = Sys.getenv("CDS_TEST_LIB")); ` +
    `test_dir("tests/testthat", filter = "${filter}", invert = ${invert ? 'TRUE' : 'FALSE'}, load_package = "none", ` +
    `reporter = "summary", stop_on_failure = TRUE)`;

  it('answers the ten questions, the tidycensus port and geometry = TRUE as plain HTTP does', async () => {
    expect(fs.readdirSync(lib), 'the package was not installed by the check test').toContain('censusdataservice');
    const env = envWith({ CDS_BASE_URL: base, CDS_API_KEY: svc.keys.business, CDS_TOKEN: token, CDS_TEST_LIB: lib });
    const r = await run('Rscript', ['-e', testthat('ratelimit', true)], { cwd: PKG_DIR, env, timeoutMs: 150_000 });
    expect(r.code, r.out).toBe(0);
    // every test ran: none skipped for want of a server, a token or sf
    expect(r.out, r.out).not.toMatch(/Skipped/);
  }, 180_000);

  it('retries a Free key past its burst after the wait the 429 tells', async () => {
    expect(fs.readdirSync(lib)).toContain('censusdataservice');
    // Move the server's clock forward to second 35 of a minute and spend the Free key's burst of
    // 60 requests: the R process then gets a 429 telling it to wait until that window ends (25 s
    // leave room for R to start on a loaded machine; were the window gone, the R test would spend
    // the next one itself, slowly).
    const inMinute = (Date.now() + shift) % 60_000;
    shift += (35_000 - inMinute + 60_000) % 60_000;
    let refused: Response | undefined;
    for (let i = 0; i <= 60 && !refused; i++) {
      const res = await fetch(`${base}/v1/topics`, { headers: { 'x-api-key': svc.keys.free } });
      await res.arrayBuffer();
      if (res.status === 429) refused = res;
    }
    expect(refused?.headers.get('retry-after')).toMatch(/^\d+$/);
    const env = envWith({ CDS_BASE_URL: base, CDS_API_KEY: svc.keys.business, CDS_FREE_KEY: svc.keys.free, CDS_TEST_LIB: lib });
    const r = await run('Rscript', ['-e', testthat('ratelimit', false)], { cwd: PKG_DIR, env, timeoutMs: 150_000 });
    expect(r.code, r.out).toBe(0);
    expect(r.out, r.out).not.toMatch(/Skipped/);
  }, 180_000);
});
