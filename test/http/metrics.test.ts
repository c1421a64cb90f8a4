// GET /metrics (src/http/plugins/metrics.ts): off unless METRICS_TOKEN is set, refused without the
// token, and its counters move with real requests through the real app, admission and stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../support/service.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/** The value of one sample line (`name{labels} value`), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',').filter(Boolean);
    if (want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return 0;
}

describe('/metrics', () => {
  let svc: Service;
  beforeAll(async () => {
    svc = await startService({ config: { METRICS_TOKEN: TOKEN } });
  }, 120_000);
  afterAll(async () => svc?.close());

  const scrape = async () => {
    const res = await svc.app.inject({ url: '/metrics', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    return res.body;
  };

  it('is refused without the token, with a problem body and no internals', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-wrong-token' },
      { authorization: TOKEN },
      { 'x-api-key': svc.keys.enterprise },
    ]) {
      const res = await svc.app.inject({ url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.headers['www-authenticate']).toContain('Bearer');
      expect(res.body).not.toContain('census_');
    }
  });

  it('counts requests by route pattern and status, admission outcomes, caches and DuckDB time', async () => {
    const before = await scrape();
    const data = '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018';
    for (let i = 0; i < 3; i++)
      expect((await svc.app.inject({ url: data, headers: { 'x-api-key': svc.keys.enterprise } })).statusCode).toBe(200);
    expect((await svc.app.inject({ url: '/v1/geographies/state:06', headers: { 'x-api-key': svc.keys.enterprise } })).statusCode).toBe(200);
    expect((await svc.app.inject({ url: data, headers: { 'x-api-key': 'cds_live_not_a_key' } })).statusCode).toBe(401);
    expect((await svc.app.inject({ url: data })).statusCode).toBe(401);
    // A scan DuckDB answers (every county: past the serving index's bound of 500 lookups).
    const scan = '/v1/data?variables=B01003_001E&geo=county:*&dataset=acs5&vintage=2022';
    expect((await svc.app.inject({ url: scan, headers: { 'x-api-key': svc.keys.enterprise } })).statusCode).toBe(200);
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('census_http_requests_total', { method: 'GET', route: '/v1/data', status: '200' })).toBe(4);
    expect(delta('census_http_requests_total', { method: 'GET', route: '/v1/data', status: '401' })).toBe(2);
    expect(delta('census_http_requests_total', { method: 'GET', route: '/v1/geographies/:geo_key', status: '200' })).toBe(1);
    expect(delta('census_http_request_duration_seconds_count', { route: '/v1/data', status: '200' })).toBe(4);
    // Route patterns only: no raw URL, no query string in any label.
    expect(after).not.toContain('state:06');
    expect(after).not.toContain('variables=');
    expect(delta('census_admission_total', { outcome: 'admitted' })).toBeGreaterThanOrEqual(4);
    expect(delta('census_admission_total', { outcome: 'refused', reason: 'auth' })).toBe(2);
    expect(delta('census_cache_lookups_total', { cache: 'api_keys', result: 'hit' })).toBeGreaterThanOrEqual(3);
    // Repeated data requests are answered from kept answers before the store's result cache is asked.
    expect(delta('census_cache_lookups_total', { cache: 'data_answers', result: 'hit' })).toBeGreaterThanOrEqual(2);
    expect(delta('census_cache_lookups_total', { cache: 'observation_results', result: 'miss' })).toBeGreaterThanOrEqual(1);
    expect(delta('census_duckdb_query_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    const build = svc.stores.build!.manifest.build_id;
    expect(sample(after, 'census_build_info', { build_id: build })).toBe(1);
  });

  it('counts refusals by reason (burst)', async () => {
    // The free plan's per-minute burst is exact: go past it and count the refusals.
    const before = await scrape();
    const url = '/v1/geographies/state:06';
    let refused = 0;
    for (let i = 0; i < 70 && refused < 2; i++) {
      const r = await svc.app.inject({ url, headers: { 'x-api-key': svc.keys.free } });
      if (r.statusCode === 429) refused++;
    }
    expect(refused).toBe(2);
    const after = await scrape();
    const delta =
      sample(after, 'census_admission_total', { outcome: 'refused', reason: 'burst' }) -
      sample(before, 'census_admission_total', { outcome: 'refused', reason: 'burst' });
    expect(delta).toBe(2);
  });

  it('is not served at all without METRICS_TOKEN', async () => {
    const plain = await startService();
    try {
      const res = await plain.app.inject({ url: '/metrics', headers: auth });
      expect(res.statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  }, 60_000);
});
