// A client generated from /openapi.json type-checks the real answers of every operation: the types
// openapi-typescript generates from the served description (as a TypeScript client's build would),
// and a file assigning each real JSON answer — of the Prism test's request set, which covers every
// operation and its main statuses — to the type of its operation, status and media type, compiled
// by tsc in strict mode. An answer with a member the description does not state, a member of the
// wrong type or a status it does not list is a type error; the test expects none.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalIdp, type LocalIdp } from '../support/oidc.js';
import { startService, type Service } from '../support/service.js';
import { startStripeStub, type StripeStub } from '../support/stripe-stub.js';
import { prismRequests, type PrismRequest } from './openapi-prism-requests.js';

interface Captured {
  request: PrismRequest;
  status: number;
  contentType: string;
  body: string;
}

let svc: Service;
let idp: LocalIdp;
let stub: StripeStub;
let doc: { paths: Record<string, Record<string, unknown>> };
const answers: Captured[] = [];

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
  const base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  doc = (await (await fetch(`${base}/openapi.json`)).json()) as typeof doc;
  await prismRequests({
    keys: svc.keys,
    bearer: async (sub) => `Bearer ${await idp.sign({ sub, email: `${sub}@example.com`, email_verified: true })}`,
    send: async (r) => {
      const headers: Record<string, string> = { 'accept-encoding': 'identity', ...r.headers };
      if (r.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(base + r.path, {
        method: r.method ?? 'GET',
        headers,
        body: r.body === undefined ? undefined : JSON.stringify(r.body),
        redirect: 'manual',
      });
      const body = await res.text();
      answers.push({ request: r, status: res.status, contentType: res.headers.get('content-type') ?? '', body });
      return { status: res.status, headers: res.headers, body };
    },
  });
}, 300_000);

afterAll(async () => {
  await svc?.close();
  await idp?.close();
  await stub?.close();
});

/** The path template and method of a request's operation (`GET /data/{vintage}/acs/acs1` → ['/data/{vintage}/acs/acs1', 'get']). */
const opOf = (r: PrismRequest): [string, string] => {
  const at = r.op.indexOf(' ');
  return [r.op.slice(at + 1), r.op.slice(0, at).toLowerCase()];
};

describe('types generated from /openapi.json by openapi-typescript', () => {
  it('type-check the real answer of every operation (tsc --strict: 0 errors)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-openapi-ts-'));
    fs.writeFileSync(path.join(dir, 'schema.d.ts'), astToString(await openapiTS(doc as never)));
    const lines = [
      "import type { paths } from './schema';",
      '// The body type of one operation, status and media type; `never` where the description has none.',
      'type Body<P extends keyof paths, M extends keyof paths[P], S extends number, T extends string> =',
      '  paths[P][M] extends { responses: infer R } ? S extends keyof R ? R[S] extends { content: infer C } ? T extends keyof C ? C[T] : never : never : never : never;',
    ];
    const operations = new Set<string>();
    let checked = 0;
    answers.forEach((a, i) => {
      const [template, method] = opOf(a.request);
      operations.add(a.request.op);
      // Every answer's status is one the description lists for the operation.
      lines.push(`type S${i} = paths[${JSON.stringify(template)}][${JSON.stringify(method)}] extends { responses: infer R } ? R : never;`);
      lines.push(`const s${i}: keyof S${i} = ${a.status};`);
      const type = a.contentType.split(';')[0]!.trim();
      if (!/^application\/(.+\+)?json$/.test(type) || a.body === '' || a.request.method === 'HEAD') return;
      lines.push(
        // One line per answer, so a diagnostic's line names the answer.
        `const a${i}: Body<${JSON.stringify(template)}, ${JSON.stringify(method)}, ${a.status}, ${JSON.stringify(type)}> = ${JSON.stringify(JSON.parse(a.body))};`,
      );
      checked++;
    });
    lines.push(`export const all = [${answers.map((_, i) => `s${i}`).join(', ')}];`);
    fs.writeFileSync(path.join(dir, 'answers.ts'), lines.join('\n'));

    // Every operation of the description had an answer to check.
    const all = Object.entries(doc.paths).flatMap(([t, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${t}`));
    expect(all.filter((op) => !operations.has(op))).toEqual([]);
    expect(checked).toBeGreaterThan(60);

    const program = ts.createProgram([path.join(dir, 'answers.ts')], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      noUnusedLocals: false,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    const source = fs.readFileSync(path.join(dir, 'answers.ts'), 'utf8').split('\n');
    // Each error once per operation, status and message: `GET /v1/… 200: Type … is not assignable …`.
    const errors = new Set(
      ts.getPreEmitDiagnostics(program).map((d) => {
        const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
        const n = where ? /^const [as](\d+)/.exec(source[where.line] ?? '')?.[1] : undefined;
        const a = n === undefined ? undefined : answers[Number(n)];
        const message = ts.flattenDiagnosticMessageText(d.messageText, ' ').slice(0, 300);
        return a ? `${a.request.op} ${a.status}: ${message}` : `${where?.line}: ${message}`;
      }),
    );
    expect([...errors].slice(0, 30)).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 300_000);
});
