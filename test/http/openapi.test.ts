import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildWeb } from '../../web/build.js';
import { REPO_ROOT } from '../support/paths.js';
import { KEYS, makeApp } from './support.js';

describe('OpenAPI document', () => {
  let app: FastifyInstance;
  let doc: any;
  beforeAll(async () => {
    app = await makeApp({ configOverrides: { BASE_URL: 'https://api.census-data.example' } });
    const res = await app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(() => app.close());

  it('is OpenAPI 3.1 with our title, version and servers', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Census Data Service');
    expect(doc.info.version).toBe(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version);
    expect(doc.servers).toEqual([{ url: 'https://api.census-data.example', description: 'This deployment' }]);
    for (const convention of ['comma-separated', 'separated by `;`', 'acs5', 'limit', 'offset', '10,000', '422'])
      expect(doc.info.description).toContain(convention);
  });

  it('gives every operation a unique operationId, a 2xx and every error status its route can produce', () => {
    const ids: string[] = [];
    for (const [p, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        expect(op.operationId, `${method} ${p}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
        ids.push(op.operationId);
        const statuses = Object.keys(op.responses);
        expect(
          statuses.some((s) => /^2/.test(s)),
          `${method} ${p}`,
        ).toBe(true);
        // Any request can be malformed (bad percent-encoding): 400; any can fail: 500.
        expect(statuses, `${method} ${p}`).toEqual(expect.arrayContaining(['400', '500']));
        if (p.includes('{')) expect(statuses, `${method} ${p}`).toEqual(expect.arrayContaining(['404', '414']));
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/v1/variables/{api_name}'].get.operationId).toBe('getVariablesByApiName');
  });

  it('passes `redocly lint` with the recommended rules: 0 errors, 0 warnings', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cds-oas-')), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const bin = path.join(REPO_ROOT, 'node_modules', '.bin', 'redocly');
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const out = await promisify(execFile)(bin, ['lint', file, '--extends=recommended', '--format=json'], {
      env,
      cwd: path.dirname(file),
    }).catch((e: { stdout: string }) => e);
    const report = JSON.parse(out.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('declares the API-key security schemes and the Problem schema', () => {
    expect(doc.components.securitySchemes.ApiKeyHeader).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.components.securitySchemes.ApiKeyQuery).toMatchObject({ type: 'apiKey', in: 'query', name: 'api_key' });
    expect(doc.components.schemas.Problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'request_id']));
  });

  it('documents the built-in routes with parameters, envelope and error responses', () => {
    for (const p of [
      '/health',
      '/v1/variables',
      '/v1/variables/{api_name}',
      '/v1/topics',
      '/v1/datasets',
      '/v1/codebook.json',
      '/v1/codebook.csv',
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
    const list = doc.paths['/v1/variables'].get;
    expect(list.parameters.map((x: any) => x.name)).toEqual(expect.arrayContaining(['search', 'topic', 'limit', 'offset']));
    const ok = list.responses['200'].content['application/json'].schema;
    expect(Object.keys(ok.properties)).toEqual(['data', 'meta', 'links']);
    expect(ok.properties.data.items.properties).toHaveProperty('census_code');
    for (const status of ['400', '401', '422', '429', '500', '503']) {
      expect(list.responses[status].content['application/problem+json'].schema.$ref, status).toBe('#/components/schemas/Problem');
    }
    expect(doc.paths['/v1/variables/{api_name}'].get.parameters[0]).toMatchObject({ name: 'api_name', in: 'path', required: true });
  });

  it('describes the CSV answer of data, compare and timeseries beside the JSON one, as an attachment', () => {
    for (const p of ['/v1/data', '/v1/compare', '/v1/timeseries']) {
      const ok = doc.paths[p].get.responses['200'];
      expect(Object.keys(ok.content), p).toEqual(['application/json', 'text/csv']);
      expect(ok.content['application/json'].schema.properties, p).toHaveProperty('data');
      expect(ok.headers, p).toHaveProperty('Content-Disposition');
    }
    expect(doc.paths['/v1/topics'].get.responses['200'].content['text/csv']).toBeUndefined();
  });

  it('describes the headers the service sends', () => {
    const data = doc.paths['/v1/data'].get.responses;
    expect(data['200'].headers['X-Request-ID'].schema).toEqual({ type: 'string', format: 'uuid' });
    for (const h of ['RateLimit', 'RateLimit-Policy']) expect(data['200'].headers, h).toHaveProperty(h);
    expect(data['429'].headers).toHaveProperty('Retry-After');
    expect(data['503'].headers).toHaveProperty('Retry-After');
    expect(data['401'].headers).toHaveProperty('WWW-Authenticate');
    expect(data['401'].headers).not.toHaveProperty('RateLimit');
    // Public routes report no quota.
    expect(doc.paths['/health'].get.responses['200'].headers).not.toHaveProperty('RateLimit');
    const boundaries = doc.paths['/v1/boundaries/{target}'].get.responses;
    for (const s of ['200', '304']) expect(boundaries[s].headers, s).toHaveProperty('ETag');
    expect(boundaries['200'].headers).toHaveProperty('X-Boundary-Vintage');
    expect(doc.paths['/v1/codebook.csv'].get.responses['200'].headers).toHaveProperty('Content-Disposition');
  });

  it('gives 304 and 204 no media type: they carry no body', () => {
    const bodiless = Object.entries<Record<string, any>>(doc.paths).flatMap(([p, ops]) =>
      Object.values<any>(ops).flatMap((op) => ['204', '304'].filter((s) => op.responses[s]).map((s) => ({ p, s, r: op.responses[s] }))),
    );
    expect(bodiless.map(({ p, s }) => `${s} ${p}`)).toEqual(
      expect.arrayContaining(['304 /v1/codebook.json', '304 /v1/boundaries/{target}']),
    );
    for (const { p, s, r } of bodiless) expect(r.content, `${s} ${p}`).toBeUndefined();
  });

  it('describes boundaries and centroids as GeoJSON Features with geometry and properties', () => {
    const boundary = doc.paths['/v1/boundaries/{target}'].get.responses['200'].content['application/geo+json'].schema;
    // @fastify/swagger writes a JSON Schema `const` as a one-value `enum`.
    const literal = (s: any) => s.const ?? s.enum?.[0];
    const [collection, feature] = boundary.oneOf;
    expect(literal(collection.properties.type)).toBe('FeatureCollection');
    expect(feature.required).toEqual(['type', 'geometry', 'properties']);
    expect(feature.properties.geometry.oneOf.map((g: any) => literal(g.properties.type))).toEqual(['Polygon', 'MultiPolygon']);
    expect(feature.properties.properties.required).toEqual(expect.arrayContaining(['geo_key', 'name']));
    const centroids = doc.paths['/v1/centroids/{geo_type}'].get.responses['200'].content['application/geo+json'].schema;
    expect(literal(centroids.properties.features.items.properties.geometry.properties.type)).toBe('Point');
  });

  it('allows no path parameter longer than the router takes, and the router takes what it allows', async () => {
    for (const [p, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const op of Object.values<any>(ops)) {
        for (const param of (op.parameters ?? []).filter((x: any) => x.in === 'path')) {
          expect(param.schema.maxLength, `${p} {${param.name}}`).toBeLessThanOrEqual(100);
        }
      }
    }
    const geoKey = doc.paths['/v1/geographies/{geo_key}'].get.parameters.find((x: any) => x.in === 'path');
    expect(geoKey.schema.maxLength).toBe(100);
    const at = async (n: number) =>
      (await app.inject({ url: `/v1/geographies/${'x'.repeat(n)}`, headers: { 'x-api-key': KEYS.pro } })).statusCode;
    expect(await at(100)).not.toBe(414);
    expect(await at(101)).toBe(414);
  });

  it('marks /health public and leaves /openapi.json itself out', () => {
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/health'].get.responses['401']).toBeUndefined();
    expect(doc.paths['/openapi.json']).toBeUndefined();
  });

  it('regression: serves the API reference (/docs) in production too, self-contained', async () => {
    // The page links the dashboard's stylesheet from dist/: build it here, as the other page
    // tests do, so this file passes alone on a fresh clone (the build renames files into place).
    await buildWeb();
    expect((await app.inject({ url: '/docs' })).statusCode).toBeLessThan(400);
    const prod = await makeApp({ configOverrides: { NODE_ENV: 'production' } });
    // The dashboard's "API reference" link: a page, not a 404.
    let res = await prod.inject({ url: '/docs' });
    if (res.statusCode >= 300 && res.statusCode < 400) res = await prod.inject({ url: String(res.headers.location) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('Census Data Service API reference');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    // No script at all, and every stylesheet it names is served here (no CDN).
    expect(res.body).not.toMatch(/<script/i);
    const assets = [...res.body.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const a of assets) {
      expect(a, a).not.toMatch(/^https?:/);
      expect((await prod.inject({ url: new URL(a, 'http://x/docs/').pathname })).statusCode, a).toBe(200);
    }
    // Every operation of the document is on the page.
    const doc = (await prod.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
    for (const path of Object.keys(doc.paths)) expect(res.body, path).toContain(`<code>${path.replace(/&/g, '&amp;')}</code>`);
    // The document it shows is this service's.
    const json = await prod.inject({ url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json().info.title).toBe('Census Data Service');
    expect((await prod.inject({ url: '/openapi.json' })).statusCode).toBe(200);
    await prod.close();
  }, 60_000);
});
