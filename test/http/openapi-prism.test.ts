// The OpenAPI description judged by a third party: Prism (`prism proxy --errors`) stands between a
// client and the real service on a real port and checks every request and every answer against
// /openapi.json. A request Prism finds invalid is refused by Prism itself (422, or 401 for a
// missing credential); an answer that does not match the description is replaced by a 500; either
// way the `sl-violations` header lists what was wrong. So each request of the set names the status
// the service must answer, and the test asserts that status, no `sl-violations` header and, for
// errors, the service's own problem type (never Prism's).
//
// The operations are read from the served /openapi.json: a new route without a request here fails
// the coverage check.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/paths.js';
import { startLocalIdp, type LocalIdp } from '../support/oidc.js';
import { startService, type Service } from '../support/service.js';
import { startStripeStub, type StripeStub } from '../support/stripe-stub.js';
import { prismRequests, type PrismRequest, type RequestSetContext } from './openapi-prism-requests.js';

interface Answer {
  request: PrismRequest;
  status: number;
  violations: string | null;
  contentType: string;
  body: string;
  headers: Headers;
}

let svc: Service;
let idp: LocalIdp;
let stub: StripeStub;
const prisms: ChildProcess[] = [];
let prismUrl = '';
let doc: { paths: Record<string, Record<string, unknown>> };
const answers: Answer[] = [];
/** A request the description does not admit, which Prism must refuse itself. */
let refused: Answer;
/** A true answer judged against a description that misstates it. */
let misdescribed: Answer;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `prism proxy` in front of the service; resolves with its URL once it listens. */
async function startPrism(specFile: string, upstream: string): Promise<string> {
  const port = await freePort();
  // PRISM_NODE: run Prism on another Node than the tests' (e.g. the container's LTS) to check it runs there.
  const cli = path.join(REPO_ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
  // The preload hands 302s back as they come (Prism's forwarder would follow them).
  const manualRedirects = path.join(REPO_ROOT, 'test', 'http', 'prism-manual-redirects.cjs');
  const args = ['-r', manualRedirects, cli, 'proxy', specFile, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)];
  const prism = spawn(process.env.PRISM_NODE ?? process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  prisms.push(prism);
  let prismOutput = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${prismOutput}`)), 30_000);
    const onData = (chunk: Buffer) => {
      prismOutput += String(chunk);
      if (prismOutput.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    prism.stdout!.on('data', onData);
    prism.stderr!.on('data', onData);
    prism.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${code}):\n${prismOutput}`));
    });
  });
  return `http://127.0.0.1:${port}`;
}

function writeSpec(spec: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cds-prism-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(spec));
  return file;
}

async function send(r: PrismRequest, via = prismUrl): Promise<Answer> {
  const headers: Record<string, string> = { 'accept-encoding': 'identity', ...r.headers };
  if (r.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(via + r.path, {
    method: r.method ?? 'GET',
    headers,
    body: r.body === undefined ? undefined : JSON.stringify(r.body),
    redirect: 'manual',
  });
  const body = await res.text();
  return {
    request: r,
    status: res.status,
    violations: res.headers.get('sl-violations'),
    contentType: res.headers.get('content-type') ?? '',
    body,
    headers: res.headers,
  };
}

beforeAll(async () => {
  idp = await startLocalIdp();
  stub = await startStripeStub();
  svc = await startService({
    config: {
      OIDC_ISSUER: idp.issuer,
      OIDC_AUDIENCE: idp.audience,
      OIDC_JWKS_URL: idp.jwksUrl,
      STRIPE_SECRET_KEY: 'sk_test_stub',
      STRIPE_API_URL: stub.url,
    },
  });
  const upstream = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  doc = (await (await fetch(`${upstream}/openapi.json`)).json()) as typeof doc;
  // The second proxy judges by a copy whose /v1/topics 200 requires a member no answer has.
  const wrong = structuredClone(doc) as any;
  wrong.paths['/v1/topics'].get.responses['200'].content['application/json'].schema.required.push('no_such_member');
  const [url, wrongUrl] = await Promise.all([startPrism(writeSpec(doc), upstream), startPrism(writeSpec(wrong), upstream)]);
  prismUrl = url;

  const ctx: RequestSetContext = {
    keys: svc.keys,
    bearer: async (sub) => `Bearer ${await idp.sign({ sub, email: `${sub}@example.com`, email_verified: true })}`,
    // Requests that depend on an earlier answer (an ETag, a new key's id) read it from here.
    send: async (r) => {
      const a = await send(r);
      answers.push(a);
      return { status: a.status, headers: a.headers, body: a.body };
    },
  };
  await prismRequests(ctx);
  refused = await send({
    op: 'GET /v1/data',
    path: '/v1/data?variables=B19013_001E&geo=state:06&vintage=abc',
    status: 422,
    headers: { 'x-api-key': svc.keys.enterprise },
  });
  misdescribed = await send(
    { op: 'GET /v1/topics', path: '/v1/topics', status: 200, headers: { 'x-api-key': svc.keys.enterprise } },
    wrongUrl,
  );
}, 180_000);

afterAll(async () => {
  for (const p of prisms) p.kill();
  await svc?.close();
  await idp?.close();
  await stub?.close();
});

describe('Prism validating proxy over every operation in /openapi.json', () => {
  it('is a live judge: a request the description does not admit is refused by Prism itself (422, sl-violations)', () => {
    // `vintage` is an integer in the description: Prism answers without asking the service.
    expect(refused.status).toBe(422);
    const problem = JSON.parse(refused.body) as { type: string; validation: unknown[] };
    expect(problem.type).toContain('stoplight.io/prism');
    expect(problem.validation).toEqual(
      expect.arrayContaining([expect.objectContaining({ location: expect.arrayContaining(['query', 'vintage']) })]),
    );
  });

  it('is a live judge: an answer the description misstates is replaced by a 500 with sl-violations', () => {
    expect(misdescribed.status).toBe(500);
    expect(misdescribed.body).toContain('stoplight.io/prism');
    expect(misdescribed.violations).toContain('no_such_member');
  });

  it('covers every operation with at least one request', () => {
    const uncovered: string[] = [];
    for (const [template, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const op = `${method.toUpperCase()} ${template}`;
        if (!answers.some((a) => a.request.op === op)) uncovered.push(op);
      }
    }
    expect(uncovered).toEqual([]);
    // And no request names an operation the document does not have.
    const known = new Set(Object.entries(doc.paths).flatMap(([t, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${t}`)));
    expect(answers.map((a) => a.request.op).filter((op) => !known.has(op))).toEqual([]);
  });

  it('answers every request with the status the service gives it, and Prism reports 0 violations', () => {
    const wrong = answers
      .filter((a) => a.violations !== null || a.status !== a.request.status)
      .map(
        (a) =>
          `${a.request.method ?? 'GET'} ${a.request.path} → ${a.status} (expected ${a.request.status})` +
          (a.violations ? ` sl-violations: ${a.violations}` : ` ${a.body.slice(0, 300)}`),
      );
    expect(wrong).toEqual([]);
  });

  it("gives every error the service's own problem type, never Prism's", () => {
    const foreign = answers
      .filter((a) => a.status >= 400 && a.body.includes('stoplight.io/prism'))
      .map((a) => `${a.request.path}: ${a.body}`);
    expect(foreign).toEqual([]);
  });

  it('checked CSV answers of data, compare and timeseries as text/csv', () => {
    for (const op of ['GET /v1/data', 'GET /v1/compare', 'GET /v1/timeseries']) {
      const csv = answers.filter((a) => a.request.op === op && a.status === 200 && a.contentType.startsWith('text/csv'));
      expect(csv.length, op).toBeGreaterThan(0);
    }
  });
});
