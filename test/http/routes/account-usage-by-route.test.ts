// Usage "by endpoint" over HTTP with the production admission seam (read back with the usage verb
// as the signed-in owner of the key, which is what /v1/account/usage answers): requests are counted under
// their route's template (`/v1/geographies/:geo_key`), so a dashboard lists a handful of
// endpoints, not one URL-encoded path per geography asked for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountUsage } from '../../../src/verbs/account-usage.js';
import { authenticate } from '../../../src/verbs/authenticate.js';
import { verbContext } from '../../support/context.js';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(async () => {
  await svc?.close();
});

describe('GET /v1/account/usage by_route', () => {
  it('regression: groups requests by route template, not by each (URL-encoded) path', async () => {
    const headers = { 'x-api-key': svc.keys.enterprise };
    const paths = [
      '/v1/geographies/state:06',
      '/v1/geographies/state%3A48',
      '/v1/geographies/county:48453',
      '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018',
      '/v1/data?variables=B19013_001E&geo=state%3A48&dataset=acs1&vintage=2018',
      '/v1/timeseries?variables=B19013_001E&geo=state:06&dataset=acs1&from=2017&to=2018',
    ];
    for (const url of paths) {
      const res = await svc.app.inject({ url, headers });
      expect(res.statusCode, `${url} ${res.body.slice(0, 300)}`).toBe(200);
    }
    // The account endpoints take a dashboard sign-in; the same verb answers for the key's account.
    const ctx = verbContext(svc.stores, { plan: null });
    const caller = (await authenticate({ ctx, input: { apiKey: svc.keys.enterprise } })).data;
    const usage = await accountUsage({ ctx: { ...ctx, caller }, input: {} });
    const byRoute = usage.data.by_route as { route: string; requests: number }[];
    const requests = Object.fromEntries(byRoute.map((r) => [r.route, r.requests]));
    expect(requests).toEqual({ '/v1/geographies/:geo_key': 3, '/v1/data': 2, '/v1/timeseries': 1 });
    for (const r of byRoute) expect(r.route).not.toMatch(/%3A|state:|county:/i);
  });
});
