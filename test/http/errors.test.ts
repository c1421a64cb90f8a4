import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOGUE, slugOf, type ErrorCode } from '../../src/domain/errors.js';
import { fixtureRoutes } from './fixture-routes.js';
import { captureLogger, KEYS, makeApp, problemOf } from './support.js';

const ERRORS_URL = 'https://errors.example.org/e';
const auth = { 'x-api-key': KEYS.free };

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }, status: number, slug: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const p = problemOf(res);
  expect(p.type).toBe(`${ERRORS_URL}/${slug}`);
  expect(p.status).toBe(status);
  expect(typeof p.title).toBe('string');
  expect(typeof p.detail).toBe('string');
  expect(p.request_id).toBe(res.headers['x-request-id']);
  return p;
}

describe('problem+json', () => {
  let app: FastifyInstance;
  const log = captureLogger('info');
  beforeAll(async () => {
    app = await makeApp({ extraRoutes: fixtureRoutes, logger: log.logger, configOverrides: { ERRORS_URL } });
  });
  afterAll(() => app.close());

  it.each(Object.keys(ERROR_CATALOGUE) as ErrorCode[])('renders %s with its status, title and slug', async (code) => {
    const res = await app.inject({ url: `/t/error/${code}` });
    const entry = ERROR_CATALOGUE[code];
    const p = expectProblem(res, entry.status, slugOf(code));
    expect(p.title).toBe(entry.title);
    expect(p.detail).toBe(`detail for ${code}`);
    expect(p.instance).toBe(`/t/error/${code}`);
    expect(p.upgrade_url).toBe('https://x/billing');
    if (entry.status === 401) expect(res.headers['www-authenticate']).toBeTruthy();
  });

  describe('validation: 422 when unreadable, 400 when unacceptable', () => {
    it('missing required parameter → 422 missing', async () => {
      const p = expectProblem(await app.inject({ url: '/t/items', headers: auth }), 422, 'validation-error');
      expect(p.errors).toEqual([{ field: 'query → geo', message: 'Field required: geo', type: 'missing' }]);
      expect(p.detail).toContain('query → geo');
    });

    it('empty value counts as missing', async () => {
      const p = expectProblem(await app.inject({ url: '/t/items?geo=', headers: auth }), 422, 'validation-error');
      expect(p.errors?.[0]).toMatchObject({ field: 'query → geo', type: 'missing' });
    });

    it.each(['abc', '2020.5', '20x0', '1e3'])('non-integer vintage %s → 422 int_parsing', async (v) => {
      const p = expectProblem(await app.inject({ url: `/t/items?geo=state:06&vintage=${v}`, headers: auth }), 422, 'validation-error');
      expect(p.errors).toEqual([{ field: 'query → vintage', message: 'Input should be a valid integer', type: 'int_parsing' }]);
    });

    it('value outside a closed set → 422 enum', async () => {
      const p = expectProblem(await app.inject({ url: '/t/items?geo=state:06&dataset=acs3', headers: auth }), 422, 'validation-error');
      expect(p.errors?.[0]).toMatchObject({ field: 'query → dataset', type: 'enum' });
    });

    it('unparseable boolean → 422 bool_parsing', async () => {
      const p = expectProblem(
        await app.inject({ url: '/t/items?geo=state:06&include_geometry=maybe', headers: auth }),
        422,
        'validation-error',
      );
      expect(p.errors?.[0]).toMatchObject({ field: 'query → include_geometry', type: 'bool_parsing' });
    });

    it('well-typed but out of range → 400', async () => {
      const p = expectProblem(await app.inject({ url: '/t/items?geo=state:06&vintage=1999', headers: auth }), 400, 'validation-error');
      expect(p.errors).toEqual([expect.objectContaining({ field: 'query → vintage', type: 'greater_than_equal' })]);
      const q = expectProblem(await app.inject({ url: '/t/items?geo=state:06&variables=a,b,c,d', headers: auth }), 400, 'validation-error');
      expect(q.errors?.[0]).toMatchObject({ field: 'query → variables', type: 'too_long' });
    });

    it('any unreadable field makes the whole response 422 and every field is listed', async () => {
      const p = expectProblem(await app.inject({ url: '/t/items?vintage=1999&limit=x', headers: auth }), 422, 'validation-error');
      expect(p.errors?.map((e) => e.field).sort()).toEqual(['query → geo', 'query → limit', 'query → vintage']);
    });

    it('a repeated scalar parameter is a type error', async () => {
      const p = expectProblem(await app.inject({ url: '/t/items?geo=a&geo=b', headers: auth }), 422, 'validation-error');
      expect(p.errors?.[0]).toMatchObject({ field: 'query → geo', type: 'string_type' });
    });

    it('body fields are reported as body → field', async () => {
      const p = expectProblem(
        await app.inject({ method: 'POST', url: '/t/echo', payload: { interval: 'weekly' } }),
        422,
        'validation-error',
      );
      expect(p.errors?.[0]).toMatchObject({ field: 'body → interval', type: 'enum' });
      const ok = await app.inject({ method: 'POST', url: '/t/echo', payload: {} });
      expect(ok.json().data).toEqual({ interval: 'monthly' });
    });
  });

  describe('framework errors', () => {
    it('unknown route → 404 not-found', async () => {
      const p = expectProblem(await app.inject({ url: '/v1/nope?x=1' }), 404, 'not-found');
      expect(p.instance).toBe('/v1/nope');
    });

    it('wrong method on a known path → 405 with Allow', async () => {
      const res = await app.inject({ method: 'DELETE', url: '/t/public' });
      expectProblem(res, 405, 'method-not-allowed');
      expect(String(res.headers.allow)).toContain('GET');
    });

    it('malformed JSON body → 400', async () => {
      const p = expectProblem(
        await app.inject({ method: 'POST', url: '/t/echo', payload: '{"interval": ', headers: { 'content-type': 'application/json' } }),
        400,
        'validation-error',
      );
      expect(p.detail).toMatch(/not valid JSON/);
    });

    it('unsupported content type → 415', async () => {
      expectProblem(
        await app.inject({ method: 'POST', url: '/t/echo', payload: '<x/>', headers: { 'content-type': 'application/xml' } }),
        415,
        'unsupported-media-type',
      );
    });

    it('oversized body → 413', async () => {
      const big = JSON.stringify({ interval: 'monthly', pad: 'x'.repeat(1_100_000) });
      expectProblem(
        await app.inject({ method: 'POST', url: '/t/echo', payload: big, headers: { 'content-type': 'application/json' } }),
        413,
        'payload-too-large',
      );
    });
  });

  describe('unexpected errors', () => {
    it('500 internal-error leaks nothing and is logged with the request id', async () => {
      const res = await app.inject({ url: '/t/throw' });
      const p = expectProblem(res, 500, 'internal-error');
      for (const fragment of ['hunter2', 'postgres', 'secret.ts', 'Error:', 'at ']) expect(res.body).not.toContain(fragment);
      expect(p.detail).toMatch(/unexpected/i);
      const line = log.lines.find((l) => l.includes('unhandled error') && l.includes(p.request_id));
      expect(line, 'error logged with request_id').toBeDefined();
      expect(line).toContain('hunter2'); // the operator does get the real message
    });

    it('a response that violates its own schema is a 500 without the data', async () => {
      const res = await app.inject({ url: '/t/bad-shape' });
      expectProblem(res, 500, 'internal-error');
      expect(res.body).not.toContain('hunter2');
    });
  });

  describe('503', () => {
    it('dependency-unavailable when a needed store is absent; other routes keep working', async () => {
      const p = expectProblem(await app.inject({ url: '/t/needs-widgets' }), 503, 'dependency-unavailable');
      expect(p.detail).not.toContain('build');
      expect((await app.inject({ url: '/t/public' })).statusCode).toBe(200);
    });

    it('the same route works once the store is present', async () => {
      const withStore = await makeApp({ extraRoutes: fixtureRoutes, stores: { build: { dir: '/nonexistent', manifest: {} as never } } });
      expect((await withStore.inject({ url: '/t/needs-widgets' })).statusCode).toBe(200);
      await withStore.close();
    });

    it('a request past REQUEST_TIMEOUT_MS gets 503 dependency-unavailable', async () => {
      const slow = await makeApp({ extraRoutes: fixtureRoutes, configOverrides: { REQUEST_TIMEOUT_MS: 50, ERRORS_URL } });
      const p = expectProblem(await slow.inject({ url: '/t/slow' }), 503, 'dependency-unavailable');
      expect(p.detail).toMatch(/did not complete in time/);
      expect((await slow.inject({ url: '/t/public' })).statusCode).toBe(200);
      await slow.close();
    });

    it('feature-unavailable for a flag in DISABLED_FEATURES, for every plan', async () => {
      const flagged = await makeApp({ extraRoutes: fixtureRoutes, configOverrides: { DISABLED_FEATURES: ['flagged', 'csv'], ERRORS_URL } });
      for (const key of [KEYS.free, KEYS.pro]) {
        const p = expectProblem(await flagged.inject({ url: '/t/flagged', headers: { 'x-api-key': key } }), 503, 'feature-unavailable');
        expect(p.feature).toBe('flagged');
      }
      expectProblem(await flagged.inject({ url: '/t/table?format=csv', headers: { 'x-api-key': KEYS.pro } }), 503, 'feature-unavailable');
      expect((await flagged.inject({ url: '/t/table', headers: { 'x-api-key': KEYS.pro } })).statusCode).toBe(200);
      expect((await app.inject({ url: '/t/flagged', headers: auth })).statusCode).toBe(200);
      await flagged.close();
    });
  });
});
