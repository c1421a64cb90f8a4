// Content negotiation on /v1 as clients meet it: an Accept header that admits nothing the route can
// send is a 406, before anything is charged; what browsers, curl and libraries send is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../support/service.js';

let svc: Service;
const monthlyLeft = (h: unknown) => Number(/"monthly";r=(\d+)/.exec(String(h))?.[1]);
const get = (url: string, accept?: string) =>
  svc.app.inject({ url, headers: { 'x-api-key': svc.keys.pro, ...(accept === undefined ? {} : { accept }) } });

const DATA = '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018';

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

describe('Accept', () => {
  it('application/xml on a JSON route is 406 problem+json naming application/json, and is not charged', async () => {
    const before = monthlyLeft((await get('/v1/datasets')).headers.ratelimit);
    const res = await get('/v1/datasets', 'application/xml');
    expect(res.statusCode).toBe(406);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 406, available: ['application/json'] });
    const after = monthlyLeft((await get('/v1/datasets')).headers.ratelimit);
    const next = monthlyLeft((await get('/v1/datasets')).headers.ratelimit);
    // Between `before` and `after` one admitted request was charged, as between `after` and `next`:
    // the 406 in between cost nothing.
    expect(after - next).toBeGreaterThan(0);
    expect(before - after).toBe(after - next);
  });

  it('format=csv with Accept: application/json is 406 naming text/csv', async () => {
    const res = await get(`${DATA}&format=csv`, 'application/json');
    expect(res.statusCode).toBe(406);
    expect(res.json()).toMatchObject({ available: ['text/csv'] });
  });

  it.each([
    ['no Accept', undefined],
    ['*/*', '*/*'],
    ['application/json', 'application/json'],
    ["a browser's header", 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
    ['application/*', 'application/*'],
  ])('%s gets the JSON answer', async (_what, accept) => {
    const res = await get(DATA, accept);
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0].estimate).toBe(75277);
  });

  it('format=csv with Accept: text/csv, or text/*, gets the CSV', async () => {
    for (const accept of ['text/csv', 'text/*', 'application/json;q=0.5, text/csv']) {
      const res = await get(`${DATA}&format=csv`, accept);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
    }
  });
});
