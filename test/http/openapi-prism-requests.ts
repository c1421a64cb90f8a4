// The request set the Prism test sends: for every operation in /openapi.json, a success and the
// main error statuses the service answers to a request the description admits (a request it does
// not admit is Prism's to refuse, so it never reaches the service). Each request names the
// operation (`GET /v1/geographies/{geo_key}`) and the status the service gives it.
import type { PlanId } from '../../src/domain/plans.js';

export interface PrismRequest {
  /** `METHOD /template` as in /openapi.json. */
  op: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  status: number;
}

export interface RequestSetContext {
  keys: Record<PlanId, string>;
  bearer(sub: string): Promise<string>;
  send(r: PrismRequest): Promise<{ status: number; headers: Headers; body: string }>;
}

/** Well-formed, never issued. */
const UNKNOWN_KEY = `svc_live_${'z'.repeat(32)}`;

export async function prismRequests(ctx: RequestSetContext): Promise<void> {
  const key = { 'x-api-key': ctx.keys.enterprise };
  const free = { 'x-api-key': ctx.keys.free };
  const bad = { 'x-api-key': UNKNOWN_KEY };
  /** A GET, then the same request as HEAD: every GET route answers HEAD with the same status and no body. */
  const get = async (op: string, path: string, status: number, headers: Record<string, string> = key) => {
    const answer = await ctx.send({ op: `GET ${op}`, path, status, headers });
    await ctx.send({ op: `HEAD ${op}`, method: 'HEAD', path, status, headers });
    return answer;
  };
  /** A 200 with an ETag, then the same request with If-None-Match: 304. */
  const conditional = async (op: string, path: string, headers: Record<string, string> = key) => {
    const first = await get(op, path, 200, headers);
    const etag = first.headers.get('etag');
    if (etag) await get(op, path, 304, { ...headers, 'if-none-match': etag });
  };

  await get('/health', '/health', 200, {});

  // Catalogue.
  await get('/v1/variables', '/v1/variables?search=income&limit=3', 200);
  await get('/v1/variables', '/v1/variables?search=income', 401, bad);
  await get('/v1/variables/{api_name}', '/v1/variables/B19013_001E', 200);
  await get('/v1/variables/{api_name}', '/v1/variables/no_such_variable', 404);
  await get('/v1/tables', '/v1/tables?search=income&limit=3', 200);
  await get('/v1/tables/{table_id}', '/v1/tables/B19013', 200);
  await get('/v1/tables/{table_id}', '/v1/tables/B99999', 404);
  await get('/v1/topics', '/v1/topics', 200);
  await get('/v1/datasets', '/v1/datasets', 200);
  await get('/v1/datasets', '/v1/datasets', 406, { ...key, accept: 'application/xml' });
  await conditional('/v1/codebook.json', '/v1/codebook.json');
  await conditional('/v1/codebook.csv', '/v1/codebook.csv');

  // Data, in JSON, compact and CSV; the plan's CSV gate; a geography that does not exist.
  const q = 'variables=B19013_001E,B01003_001E&geo=state:06;state:48';
  await get('/v1/data', `/v1/data?${q}&vintage=2023`, 200);
  await get('/v1/data', `/v1/data?${q}&vintage=2023&format=compact`, 200);
  await get('/v1/data', `/v1/data?${q}&vintage=2023&format=csv`, 200);
  await get('/v1/data', `/v1/data?${q}&vintage=2023&format=csv`, 403, free);
  await get('/v1/data', `/v1/data?variables=B19013_001E&geo=state:99`, 404);
  await get('/v1/data', `/v1/data?variables=B19013_001E&geo=state:06&vintage=2004`, 400);
  await get('/v1/data', `/v1/data?${q}`, 401, bad);
  // 4 variables × every county: over the CSV cap of 10,000 rows, refused before any value is read.
  const wide = 'variables=B19013_001E,B01003_001E,B25001_001E,B01001_001E&geo=county:*&vintage=2023&format=csv';
  await get('/v1/data', `/v1/data?${wide}`, 413);
  await get('/v1/compare', `/v1/compare?${q}&vintage=2023`, 200);
  await get('/v1/compare', `/v1/compare?${q}&vintage=2023&format=csv`, 200);
  await get('/v1/compare', `/v1/compare?${q}&vintage=2023&format=csv`, 403, free);
  const ts = 'variables=B19013_001E&geo=state:06&from=2019&to=2023';
  await get('/v1/timeseries', `/v1/timeseries?${ts}`, 200);
  await get('/v1/timeseries', `/v1/timeseries?${ts}&format=csv`, 200);
  await get('/v1/timeseries', `/v1/timeseries?${ts}&format=csv`, 403, free);
  // Coverage: one place, 1 unit on every plan; several places are a 400.
  await get('/v1/coverage', '/v1/coverage?variables=B19013_001E,B01003_001E&geo=state:48', 200, free);
  await get('/v1/coverage', '/v1/coverage?variables=B19013_001E&geo=state:06;state:48', 400);
  await get('/v1/coverage', '/v1/coverage?variables=B19013_001E&geo=state:99', 404);

  // Geographies and the geocoder.
  await get('/v1/geographies', '/v1/geographies?type=state&limit=5', 200);
  await get('/v1/geographies/{geo_key}', '/v1/geographies/state:06', 200);
  await get('/v1/geographies/{geo_key}', '/v1/geographies/state:99', 404);
  await get('/v1/geographies/{geo_key}/children', '/v1/geographies/state:44/children?type=county', 200);
  await get('/v1/geocode', '/v1/geocode?lat=30.2672&lng=-97.7431', 200);

  // Boundaries and centroids: GeoJSON, 304 on the ETag, the plan's levels.
  await conditional('/v1/boundaries/{target}', '/v1/boundaries/county?within=state:44');
  await conditional('/v1/boundaries/{target}', '/v1/boundaries/state:44');
  await get('/v1/boundaries/{target}', '/v1/boundaries/tract?within=county:44001', 403, free);
  await get('/v1/boundaries/{target}', '/v1/boundaries/state:99', 404);
  await conditional('/v1/centroids/{geo_type}', '/v1/centroids/state');
  await get('/v1/centroids/{geo_type}', '/v1/centroids/tract', 403, free);

  // The Census Data API's own paths: its array-of-arrays, discovery documents, 204 and redirects.
  // The test build holds acs1 2018 by state and acs5 2023 by county.
  const bureau = {
    acs1: '2018/acs/acs1?get=NAME,B19013_001E&for=state:06',
    acs5: '2023/acs/acs5?get=NAME,B01003_001E&for=county:037&in=state:06',
  };
  for (const ds of ['acs1', 'acs5'] as const) {
    await get(`/data/{vintage}/acs/${ds}`, `/data/${bureau[ds]}`, 200);
    await conditional(`/data/{vintage}/acs/${ds}.json`, `/data/${bureau[ds].split('?')[0]}.json`, {});
  }
  // The Bureau's clients send the key as `key=` (the CensusApiKey scheme); a bad key is a 302 to the
  // key page, with no body (Prism is run with redirects handed back as they come). A keyless query
  // (also a 302) is not sent: the description requires a key, so Prism would refuse it itself.
  for (const ds of ['acs1', 'acs5'] as const) {
    await get(`/data/{vintage}/acs/${ds}`, `/data/${bureau[ds]}&key=${ctx.keys.enterprise}`, 200, {});
    await get(`/data/{vintage}/acs/${ds}`, `/data/${bureau[ds]}&key=${UNKNOWN_KEY}`, 302, {});
  }
  await get(
    '/data/{vintage}/acs/acs5',
    `/data/2023/acs/acs5?get=NAME,B01003_001E&for=county:999&in=state:06&key=${ctx.keys.enterprise}`,
    204,
    {},
  );
  await get('/data/{vintage}/acs/acs5', `/data/2023/acs/acs5?get=NAME,B01003_001E&key=${ctx.keys.enterprise}`, 400, {});
  await get('/data/{vintage}/acs/acs5', '/data/2023/acs/acs5?get=NAME,B01003_001E&for=county:999&in=state:06', 204);
  await get('/data/{vintage}/acs/acs5', '/data/2023/acs/acs5?get=NAME,B01003_001E', 400);
  await get('/data/{vintage}/acs/acs5', '/data/2023/acs/acs5?get=NAME,B99999_001E&for=county:037&in=state:06', 400);
  await conditional('/data.json', '/data.json', {});
  await conditional('/data/{vintage}/acs/{dataset}/variables.json', '/data/2023/acs/acs5/variables.json', {});
  await conditional('/data/{vintage}/acs/{dataset}/groups.json', '/data/2023/acs/acs5/groups.json', {});
  await conditional('/data/{vintage}/acs/{dataset}/geography.json', '/data/2023/acs/acs5/geography.json', {});
  for (const list of ['tags', 'examples', 'sorts'])
    await conditional(`/data/{vintage}/acs/{dataset}/${list}.json`, `/data/2018/acs/acs1/${list}.json`, {});
  await conditional('/data/{vintage}/acs/{dataset}/variables/{file}', '/data/2023/acs/acs5/variables/B01003_001E.json', {});
  await get('/data/{vintage}/acs/{dataset}/variables/{file}', '/data/2023/acs/acs5/variables/B99999_001E.json', 404, {});
  await conditional('/data/{vintage}/acs/{dataset}/groups/{file}', '/data/2023/acs/acs5/groups/B01003.json', {});
  await get('/data/missing_key.html', '/data/missing_key.html', 200, {});
  await get('/data/invalid_key.html', '/data/invalid_key.html', 200, {});

  // The account, signed in with a dashboard token; a fresh account per run.
  const user = { authorization: await ctx.bearer(`prism-${Date.now()}`) };
  const acct = async (method: string, op: string, path: string, status: number, body?: unknown, headers = user) => {
    const answer = await ctx.send({ op: `${method} ${op}`, method, path, status, body, headers });
    if (method === 'GET') await ctx.send({ op: `HEAD ${op}`, method: 'HEAD', path, status, headers });
    return answer;
  };
  await acct('GET', '/v1/account', '/v1/account', 200);
  await acct('GET', '/v1/account', '/v1/account', 401, undefined, { authorization: 'Bearer not-a-token' });
  await acct('PATCH', '/v1/account', '/v1/account', 200, { name: 'Prism', organization: null });
  // The test deployment publishes no terms of service: accepting them is a conflict.
  await acct('POST', '/v1/account/accept-tos', '/v1/account/accept-tos', 409, {});
  await acct('POST', '/v1/account/activate', '/v1/account/activate', 404, { code: 'no-such-code' });
  await acct('GET', '/v1/account/keys', '/v1/account/keys', 200);
  const created = await acct('POST', '/v1/account/keys', '/v1/account/keys', 201, { name: 'prism' });
  const id = (JSON.parse(created.body) as { data?: { id?: string } }).data?.id ?? 'missing-id';
  await acct('PATCH', '/v1/account/keys/{id}', `/v1/account/keys/${id}`, 200, { name: 'prism renamed' });
  const rotated = await acct('POST', '/v1/account/keys/{id}/rotate', `/v1/account/keys/${id}/rotate`, 200);
  const newId = (JSON.parse(rotated.body) as { data?: { key?: { id?: string } } }).data?.key?.id ?? 'missing-id';
  await acct('DELETE', '/v1/account/keys/{id}', `/v1/account/keys/${newId}`, 200);
  await acct('DELETE', '/v1/account/keys/{id}', '/v1/account/keys/key_doesnotexist', 404);
  await acct('POST', '/v1/account/keys/{id}/rotate', '/v1/account/keys/key_doesnotexist/rotate', 404);
  await acct('GET', '/v1/account/regions', '/v1/account/regions', 200);
  await acct('POST', '/v1/account/regions', '/v1/account/regions', 201, { name: 'prism-west', members: 'state:06;state:41' });
  await acct('PATCH', '/v1/account/regions/{name}', '/v1/account/regions/prism-west', 200, { name: 'prism-coast' });
  await acct('DELETE', '/v1/account/regions/{name}', '/v1/account/regions/prism-coast', 200);
  await acct('DELETE', '/v1/account/regions/{name}', '/v1/account/regions/prism-coast', 404);
  await acct('GET', '/v1/account/usage', '/v1/account/usage', 200);
  await acct('GET', '/v1/account/portal', '/v1/account/portal', 409);
  await acct('POST', '/v1/account/checkout', '/v1/account/checkout', 200, { plan: 'pro' });
  await acct('DELETE', '/v1/account', '/v1/account', 200, { confirm: true });
}
