// The contract as a new user and third-party tools meet it (issue 11): empty means absent, every
// framework and Node error is problem+json with a request id and without the request echoed,
// 405 with Allow, the spec's validation vocabulary, comma lists of geographies, CSV numbers as in
// JSON, `prev` past the end, security and cache headers. On the real app over the test build.
import net from 'node:net';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../support/service.js';

let svc: Service;
let key: string;

beforeAll(async () => {
  svc = await startService();
  key = svc.keys.pro;
});
afterAll(async () => svc?.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  svc.app.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } });

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, slug: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.body) as { type: string; request_id: string; status: number };
  expect(body.type.endsWith(`/${slug}`)).toBe(true);
  expect(body.status).toBe(status);
  expect(body.request_id).toBe(res.headers['x-request-id']);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  return body;
}

describe('empty means absent', () => {
  it.each([
    '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018&format=',
    '/v1/data?variables=B19013_001E&geo=state:06&dataset=&vintage=',
    '/v1/variables?search=&topic=',
    '/v1/boundaries/state:06?edition=&resolution=',
    '/v1/geographies?search=Travis&vintage=',
  ])('%s → 200', async (url) => {
    expect((await get(url)).statusCode).toBe(200);
  });

  it('a required parameter sent empty is missing (422)', async () => {
    const body = expectProblem(await get('/v1/data?variables=B19013_001E&geo='), 422, 'validation-error') as unknown as {
      errors: Array<{ field: string; type: string }>;
    };
    expect(body.errors).toEqual([expect.objectContaining({ field: 'query → geo', type: 'missing' })]);
  });
});

describe('geo errors repeat at most 100 characters of what was sent', () => {
  it.each([
    ['an unclosed region', `region(${'county:06001,'.repeat(40)}`, 400],
    ['a region mixing levels', `region(${'county:06001,'.repeat(40)}state:06)`, 422],
    ['a FIPS code of 300 digits', `county:${'0'.repeat(300)}`, 404],
  ])('%s', async (_what, geo, status) => {
    const res = await get(`/v1/data?variables=B19013_001E&geo=${encodeURIComponent(geo)}&dataset=acs5&vintage=2022`);
    expect(res.statusCode, res.body).toBe(status);
    const body = JSON.parse(res.body) as { detail: string; geo: string };
    expect(body.geo.length).toBeLessThanOrEqual(100);
    expect(body.detail).not.toContain(geo.slice(0, 120));
  });
});

describe('framework errors are problems that do not echo the request', () => {
  it('a path segment over 100 characters: 414, rate-limit headers, no echo', async () => {
    const long = 'x'.repeat(9000);
    const res = await get(`/v1/variables/${long}`);
    const body = expectProblem(res, 414, 'uri-too-long');
    expect(res.body).not.toContain('xxxxxxxxxx');
    expect((body as unknown as { instance: unknown }).instance).toBeNull();
    expect(res.headers.ratelimit).toBeDefined();
  });

  it('bad percent-encoding: 400 bad-request, not the raw path', async () => {
    const res = await get('/v1/variables/%ff%fe');
    expectProblem(res, 400, 'bad-request');
    expect(res.body).not.toContain('%ff');
  });

  it('unknown methods (QUERY included) on a known path: 405 with Allow and rate-limit headers', async () => {
    for (const method of ['QUERY', 'DELETE', 'PUT'] as const) {
      const res = await svc.app.inject({ method, url: '/v1/topics', headers: { 'x-api-key': key } });
      expectProblem(res, 405, 'method-not-allowed');
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.headers.ratelimit).toBeDefined();
    }
  });

  it('an unknown path: 404 with rate-limit headers for a valid key, none without', async () => {
    const res = await get('/v1/nope');
    expectProblem(res, 404, 'not-found');
    expect(res.headers.ratelimit).toBeDefined();
    const anon = await svc.app.inject({ method: 'GET', url: '/v1/nope' });
    expectProblem(anon, 404, 'not-found');
    expect(anon.headers.ratelimit).toBeUndefined();
  });

  describe('on a real socket', () => {
    let port = 0;
    beforeAll(async () => {
      await svc.app.listen({ port: 0, host: '127.0.0.1' });
      port = (svc.app.server.address() as net.AddressInfo).port;
    });

    function raw(request: string, onConnect?: (s: net.Socket) => void): Promise<string> {
      return new Promise((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          if (onConnect) onConnect(socket);
          else socket.write(request);
        });
        let out = '';
        socket.on('data', (d) => (out += d));
        socket.on('close', () => resolve(out));
        socket.on('error', () => resolve(out));
      });
    }

    function problemOfRaw(text: string) {
      const [head, body] = text.split('\r\n\r\n');
      return { head: head!, body: JSON.parse(body!) as { status: number; type: string; request_id: string; instance: unknown } };
    }

    it('headers over 16 KB: 431 problem+json with a request id', async () => {
      const { head, body } = problemOfRaw(await raw(`GET /v1/topics HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`));
      expect(head).toMatch(/^HTTP\/1.1 431/);
      expect(head).toMatch(/Content-Type: application\/problem\+json/);
      expect(head).toContain(`X-Request-ID: ${body.request_id}`);
      expect(body.type).toMatch(/\/headers-too-large$/);
      expect(JSON.stringify(body)).not.toContain('aaaa');
    });

    it('a malformed Content-Length: 400 bad-request problem+json', async () => {
      const { head, body } = problemOfRaw(await raw('POST /v1/account HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'));
      expect(head).toMatch(/^HTTP\/1.1 400/);
      expect(body).toMatchObject({ status: 400, instance: null });
      expect(body.type).toMatch(/\/bad-request$/);
    });

    it('a request timeout (Node clientError): 408 problem+json', async () => {
      const serverSocket = new Promise<net.Socket>((resolve) => svc.app.server.once('connection', resolve));
      const text = raw('', (socket) => socket.write('GET /v1/topics HTTP/1.1\r\nHost: x\r\n'));
      // What Node's HTTP server raises when the headers do not arrive within headersTimeout.
      svc.app.server.emit(
        'clientError',
        Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
        await serverSocket,
      );
      const { head, body } = problemOfRaw(await text);
      expect(head).toMatch(/^HTTP\/1.1 408/);
      expect(body.type).toMatch(/\/request-timeout$/);
    });
  });
});

describe("validation in the spec's vocabulary, placed where the client wrote it", () => {
  it('lat=abc → 422 float_parsing on query → lat', async () => {
    const body = expectProblem(await get('/v1/geocode?lat=abc&lng=1'), 422, 'validation-error') as unknown as { errors: unknown[] };
    expect(body.errors).toEqual([{ field: 'query → lat', message: 'Input should be a valid number', type: 'float_parsing' }]);
  });

  it('a bad path segment is reported as path → <name>', async () => {
    const body = expectProblem(await get('/v1/centroids/xyz'), 422, 'validation-error') as unknown as {
      errors: Array<{ field: string; type: string }>;
    };
    expect(body.errors[0]).toMatchObject({ field: 'path → geo_type', type: 'enum' });
  });

  it('no raw zod issue codes reach a client', async () => {
    for (const url of ['/v1/geocode?lat=abc&lng=1', '/v1/geocode?lat=95&lng=1', '/v1/centroids/xyz', '/v1/boundaries/state?bbox=a,b']) {
      const res = await get(url);
      for (const e of (res.json() as { errors: Array<{ type: string }> | null }).errors ?? [])
        expect(e.type).not.toMatch(/^(invalid_type|invalid_value|too_small|too_big|custom)$/);
    }
  });
});

describe('geographies separated by commas', () => {
  it('geo=state:06,state:48 is two geographies; names keep their commas', async () => {
    const two = await get('/v1/data?variables=B19013_001E&geo=state:06,state:48&dataset=acs1&vintage=2018');
    expect(two.statusCode).toBe(200);
    expect((two.json() as { data: Array<{ geo_key: string }> }).data.map((c) => c.geo_key)).toEqual(['state:06', 'state:48']);
    const named = await get(
      `/v1/data?variables=B01003_001E&geo=${encodeURIComponent('county:Travis County, TX,county:06037')}&dataset=acs5&vintage=2022`,
    );
    expect((named.json() as { data: Array<{ geo_key: string }> }).data.map((c) => c.geo_key)).toEqual(['county:48453', 'county:06037']);
  });
});

describe('answers', () => {
  it('CSV numbers are written as the JSON body writes them', async () => {
    const url = '/v1/data?variables=B19013_001E,core_poverty_rate,B01003_001E&geo=state:06;state:48;state:11&dataset=acs1&vintage=2018';
    const json = (await get(url)).json() as { data: Array<{ estimate: number | null; moe_numeric: number | null }> };
    const csv = parse((await get(`${url}&format=csv`)).body, { columns: true }) as Array<Record<string, string>>;
    expect(csv).toHaveLength(json.data.length);
    json.data.forEach((cell, i) => {
      expect(csv[i]!.estimate).toBe(cell.estimate === null ? '' : JSON.stringify(cell.estimate));
      expect(csv[i]!.moe_numeric).toBe(cell.moe_numeric === null ? '' : JSON.stringify(cell.moe_numeric));
    });
  });

  it('prev past the end points at the last page', async () => {
    const body = (await get('/v1/variables?offset=1000&limit=50')).json() as {
      meta: { total_count: number };
      links: { prev: string; next: null };
    };
    expect(body.meta.total_count).toBe(392);
    expect(new URL(body.links.prev).searchParams.get('offset')).toBe('350');
    expect(body.links.next).toBeNull();
  });

  it('hints speak to API users first: "not loaded", the other dataset when it has the values, and the command only as the operator\'s (issue 34 §5)', async () => {
    const body = (await get('/v1/data?variables=B19013_001E&geo=state:06&dataset=acs5&vintage=2018')).json() as { meta: { hint: string } };
    // What the caller can do comes first; the fill command is addressed to the deployment's operator.
    const [forCaller, forOperator] = body.meta.hint.split("The deployment's operator loads them with: ");
    expect(forCaller).not.toMatch(/npm|etl|--online/);
    expect(forOperator).toMatch(/^npm run etl -- build --online --datasets acs5 --vintages 2018 /);
    expect(body.meta.hint).toMatch(/not loaded/);
    expect(body.meta.hint).toMatch(/try dataset=acs1/);
  });

  it('security and cache headers: nosniff everywhere; private caching of build answers; no-store on errors', async () => {
    const ok = await get('/v1/topics');
    expect(ok.headers['x-content-type-options']).toBe('nosniff');
    expect(ok.headers['cache-control']).toBe('private, max-age=3600');
    // The answer depends on the caller's plan: a browser must not reuse one key's answer for another.
    expect(String(ok.headers.vary)).toMatch(/X-API-Key.*Authorization.*Cookie/);
    const err = await get('/v1/variables/nope_nope');
    expect(err.headers['cache-control']).toBe('no-store');
    expect(err.headers['x-content-type-options']).toBe('nosniff');
    const health = await svc.app.inject({ method: 'GET', url: '/health' });
    expect(health.headers['x-content-type-options']).toBe('nosniff');
  });
});
