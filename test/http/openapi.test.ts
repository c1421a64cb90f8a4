import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { makeApp } from './support.js';

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
    expect(doc.info.version).toBe('1.2.0');
    expect(doc.servers).toEqual([{ url: 'https://api.census-data.example' }]);
    for (const convention of ['comma-separated', 'separated by `;`', 'acs5', 'limit', 'offset', '10,000', '422']) expect(doc.info.description).toContain(convention);
  });

  it('declares the API-key security schemes and the Problem schema', () => {
    expect(doc.components.securitySchemes.ApiKeyHeader).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.components.securitySchemes.ApiKeyQuery).toMatchObject({ type: 'apiKey', in: 'query', name: 'api_key' });
    expect(doc.components.schemas.Problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'request_id']));
  });

  it('documents the built-in routes with parameters, envelope and error responses', () => {
    for (const p of ['/health', '/v1/variables', '/v1/variables/{api_name}', '/v1/topics', '/v1/datasets', '/v1/codebook.json', '/v1/codebook.csv']) {
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

  it('marks /health public and leaves /openapi.json itself out', () => {
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/health'].get.responses['401']).toBeUndefined();
    expect(doc.paths['/openapi.json']).toBeUndefined();
  });

  it('serves /docs outside production only', async () => {
    expect((await app.inject({ url: '/docs' })).statusCode).toBeLessThan(400);
    const prod = await makeApp({ configOverrides: { NODE_ENV: 'production' } });
    const res = await prod.inject({ url: '/docs' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect((await prod.inject({ url: '/openapi.json' })).statusCode).toBe(200);
    await prod.close();
  });
});
