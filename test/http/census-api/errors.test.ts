// The Census-API-compatible endpoint's statuses and bodies for what its clients send wrong, as the
// Bureau answers them (docs/census-api.md): 400 with an `error: …` text body, 204 with no body when
// nothing matches, 302 to the key pages, 404 for datasets not held. Never a 5xx for bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { startService, type Service } from '../../support/service.js';
import { captureLogger } from '../support.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.close();
});

const ask = (url: string, key: string | null = svc.keys.pro) => svc.app.inject({ url, headers: key ? { 'x-api-key': key } : {} });

function expectBureauError(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, text: RegExp) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  expect(res.body).toMatch(/^error: /);
  expect(res.body).toMatch(text);
}

const Q = '/data/2018/acs/acs1';

describe('bad queries get the Bureau error status and text', () => {
  it.each([
    ['an unknown variable', `${Q}?get=NAME,B99999_001E&for=state:06`, 400, /^error: unknown variable 'B99999_001E'$/],
    ['a lower-case code (the Bureau matches codes exactly)', `${Q}?get=b19013_001e&for=state:06`, 400, /unknown variable 'b19013_001e'/],
    ['a suffix the table does not publish', `${Q}?get=B19013_001PE&for=state:06`, 400, /unknown variable 'B19013_001PE'/],
    ['a variable number the table does not have', `${Q}?get=B19013_099E&for=state:06`, 400, /unknown variable 'B19013_099E'/],
    ['an unknown group', `${Q}?get=group(B99999)&for=state:06`, 400, /unknown variable 'group\(B99999\)'/],
    ['a table not published for this vintage', `/data/2005/acs/acs1?get=B15003_001E&for=state:06`, 400, /unknown variable 'B15003_001E'/],
    ['an empty get=', `${Q}?get=&for=state:06`, 400, /^error: missing 'get' argument$/],
    ['no get at all', `${Q}?for=state:06`, 400, /missing 'get' argument/],
    ['a missing for', `${Q}?get=NAME`, 400, /^error: missing 'for' argument$/],
    ['an unknown level', `${Q}?get=NAME&for=planet:*`, 400, /^error: unknown\/unsupported geography hierarchy$/],
    ['a level name abbreviated', `${Q}?get=NAME&for=metro:*`, 400, /unknown\/unsupported geography hierarchy/],
    ['a malformed for (no colon)', `${Q}?get=NAME&for=state`, 400, /^error: invalid 'for' argument$/],
    ['a malformed for (letters)', `${Q}?get=NAME&for=state:CA`, 400, /invalid 'for' argument/],
    ['a malformed for (wrong width)', `${Q}?get=NAME&for=state:6`, 400, /invalid 'for' argument/],
    ['a malformed for (two for)', `${Q}?get=NAME&for=state:06&for=state:48`, 400, /invalid 'for' argument/],
    ['an in= the level cannot have', `${Q}?get=NAME&for=state:06&in=county:037`, 400, /unknown\/unsupported geography hierarchy/],
    ['a county code without its state', `/data/2022/acs/acs5?get=NAME&for=county:037`, 400, /unknown\/unsupported geography hierarchy/],
    ['a tract without its state', `/data/2022/acs/acs5?get=NAME&for=tract:*`, 400, /unknown\/unsupported geography hierarchy/],
    ['a malformed in', `/data/2022/acs/acs5?get=NAME&for=county:*&in=state:XX`, 400, /invalid 'in' argument/],
    ['a malformed ucgid', `${Q}?get=NAME&ucgid=California`, 400, /invalid 'ucgid' argument/],
    ['ucgid with for', `${Q}?get=NAME&ucgid=0400000US06&for=state:06`, 400, /unknown\/unsupported geography hierarchy/],
    [
      'a predicate (not supported: never silently ignored)',
      `${Q}?get=NAME&for=state:*&B01001_001E=0:1000000`,
      400,
      /^error: unsupported parameter 'B01001_001E'/,
    ],
    ['unicode in get', `${Q}?get=${encodeURIComponent('NAMÉ,B19013_001E')}&for=state:06`, 400, /unknown variable 'NAM\?'/],
    ['unicode in for', `${Q}?get=NAME&for=${encodeURIComponent('état:06')}`, 400, /unknown\/unsupported geography hierarchy/],
    ['an emoji code', `${Q}?get=NAME&for=state:${encodeURIComponent('😀')}`, 400, /invalid 'for' argument/],
  ])('%s', async (_what, url, status, text) => {
    expectBureauError(await ask(url), status, text);
  });

  it('500 variables: 400, before any value is read', async () => {
    const codes = Array.from({ length: 500 }, (_, i) => `B01001_${String((i % 49) + 1).padStart(3, '0')}E`).join(',');
    expectBureauError(await ask(`${Q}?get=${codes}&for=state:06`), 400, /at most 50 variables; 500 were given/);
  });

  it('bad percent-encoding is a 400, not a 5xx', async () => {
    const res = await ask(`${Q}?get=NAME%E0%A4%A&for=state:06`);
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
  });
});

describe('no rows: 204 with an empty body', () => {
  it.each([
    ['a FIPS code that names no state', `${Q}?get=NAME,B19013_001E&for=state:99`],
    ['a GEO_ID of no geography', `${Q}?get=NAME&ucgid=0400000US99`],
    ['a county code no county has', `/data/2022/acs/acs5?get=NAME,B01003_001E&for=county:999&in=state:06`],
  ])('%s', async (_what, url) => {
    const res = await ask(url);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
  });
});

describe('keys', () => {
  it("a missing key is the Bureau's 302 to missing_key.html, which is an HTML page", async () => {
    const res = await ask(`${Q}?get=NAME&for=state:06`, null);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/data/missing_key.html');
    expect(res.headers['x-datawebapi-keyerror']).toBe('1');
    const page = await svc.app.inject({ url: res.headers.location as string });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Missing Key');
  });

  it('an invalid key (query or header) is the 302 to invalid_key.html', async () => {
    for (const res of [
      await ask(`${Q}?get=NAME&for=state:06&key=svc_live_00000000000000000000000000000000`, null),
      await ask(`${Q}?get=NAME&for=state:06`, 'svc_live_00000000000000000000000000000000'),
    ]) {
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/data/invalid_key.html');
      expect((await svc.app.inject({ url: '/data/invalid_key.html' })).body).toContain('Invalid Key');
    }
  });

  it('key= takes one of our keys, and is charged as /v1/data for the same cells', async () => {
    const viaKey = await ask(`${Q}?get=NAME,B19013_001E,B19013_001M&for=state:06,48&key=${svc.keys.pioneer}`, null);
    expect(viaKey.statusCode).toBe(200);
    const used = (res: { headers: Record<string, unknown> }) => Number(/r=(\d+)/.exec(String(res.headers.ratelimit))![1]);
    const before = used(viaKey);
    const v1 = await ask('/v1/data?variables=B19013_001E&geo=state:06;state:48&dataset=acs1&vintage=2018', svc.keys.pioneer);
    const afterV1 = used(v1);
    const again = await ask(`${Q}?get=NAME,B19013_001E,B19013_001M&for=state:06,48`, svc.keys.pioneer);
    // Remaining units fall by the same amount for the same cells.
    expect(before - afterV1).toBe(afterV1 - used(again));
    expect(before - afterV1).toBeGreaterThan(0);
  });

  it('wildcards are Pro and above, as on /v1/data (403, never a 5xx)', async () => {
    const res = await ask(`${Q}?get=NAME&for=state:*`, svc.keys.free);
    expectBureauError(res, 403, /Pro plan/);
    expect((await ask(`${Q}?get=NAME&for=state:*`, svc.keys.pro)).statusCode).toBe(200);
  });

  it('never writes a key sent as key= to the log', async () => {
    const log = captureLogger('trace');
    const app = await buildApp({ config: svc.config, stores: svc.stores, logger: log.logger });
    await app.ready();
    await app.inject({ url: `${Q}?get=NAME&for=state:06&key=${svc.keys.pro}` });
    await app.inject({ url: `${Q}?get=NAME&for=state:99&key=${svc.keys.business}` });
    await app.inject({ url: `${Q}?key=${svc.keys.enterprise}&get=B99999_001E&for=state:06` });
    await app.close();
    expect(log.text()).toContain('[REDACTED]');
    for (const k of [svc.keys.pro, svc.keys.business, svc.keys.enterprise]) expect(log.text()).not.toContain(k.slice(9));
  });
});

describe('paths this service does not hold: the unknown-dataset form with a pointer', () => {
  it.each([
    '/data/2020/dec/pl?get=NAME&for=state:*',
    '/data/2018/acs/acs1/subject?get=NAME&for=state:*',
    '/data/2018/acs/acs5/profile?get=NAME&for=state:*',
    '/data/2016/acs/acs1?get=NAME&for=state:*',
    '/data/2019/acs/acs5?get=NAME&for=state:*',
    '/data/1999/acs/acs1?get=NAME&for=state:*',
    '/data/timeseries/healthins/sahie?get=NAME&for=state:*',
    '/data/abcd/acs/acs1?get=NAME&for=state:*',
  ])('%s', async (url) => {
    const res = await ask(url);
    expectBureauError(
      res,
      404,
      /^error: unknown\/unsupported dataset '.*'\. This service answers ACS detailed tables at: .*\/data\/2018\/acs\/acs1.*\(see \/data\.json\)\.$/,
    );
  });

  it('a table the Bureau publishes but this build has not loaded is a 404 saying so, not an unknown variable', async () => {
    // B01003 (total population) is published in every acs1 vintage but absent from the shared files.
    expectBureauError(
      await ask(`${Q}?get=NAME,B01003_001E&for=state:06`),
      404,
      /holds no values of table 'B01003' for acs1 2018 at the level 'state'/,
    );
  });

  it('a level the dataset holds no values for is a 404 saying so', async () => {
    expectBureauError(await ask(`${Q}?get=NAME,B19013_001E&for=county:*`), 404, /holds no acs1 2018 values for the level 'county'/);
    // Several in clauses in one value, separated by `+` (a space), are read as the Bureau reads them.
    for (const inClause of ['in=state:06+county:037', 'in=state:06%20county:037', 'in=state:06&in=county:037'])
      expectBureauError(
        await ask(`/data/2022/acs/acs5?get=NAME,B01003_001E&for=tract:*&${inClause}`),
        404,
        /holds no acs5 2022 values for the level 'tract'/,
      );
  });
});
