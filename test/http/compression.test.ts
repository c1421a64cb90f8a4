// Content negotiation of compression over a real port (what browsers and HTTP clients do): br or
// gzip as asked, above a 1 KB threshold, for JSON answers, streamed GeoJSON, CSV and the pages'
// scripts; the decompressed bytes equal the uncompressed answer; small answers and clients that
// ask for nothing get identity; the explorer's script has an ETag and revalidates to 304.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../web/build.js';
import { startService, type Service } from '../support/service.js';

let svc: Service;
let base: string;

beforeAll(async () => {
  await buildWeb();
  svc = await startService();
  await svc.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = svc.app.server.address() as { port: number };
  base = `http://127.0.0.1:${addr.port}`;
}, 300_000);
afterAll(() => svc?.close());

/** A raw GET (no automatic decompression): status, headers and the body's bytes as sent. */
function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer; chunks: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers: { 'x-api-key': svc.keys.enterprise, ...headers } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts), chunks: parts.length }));
      })
      .on('error', reject);
  });
}

const decode = (enc: string | undefined, b: Buffer) =>
  enc === 'br' ? zlib.brotliDecompressSync(b) : enc === 'gzip' ? zlib.gunzipSync(b) : b;

describe('compression', () => {
  it.each([
    ['/v1/data?variables=B19013_001E&geo=state:*&dataset=acs1&vintage=2018', /json/],
    ['/v1/data?variables=B19013_001E&geo=state:*&dataset=acs1&vintage=2018&format=csv', /csv/],
    ['/v1/boundaries/state', /geo\+json/],
    ['/explore/assets/explore.js', /javascript/],
  ])('regression: %s is sent br or gzip as asked, the same bytes once decoded', async (path, type) => {
    const plain = await get(path);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(type);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    for (const [asked, expected] of [
      ['br, gzip', 'br'],
      ['gzip, deflate', 'gzip'],
    ] as const) {
      const res = await get(path, { 'accept-encoding': asked });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(expected);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.body.length).toBeLessThan(plain.body.length / 2);
      const decoded = decode(expected, res.body).toString();
      if (path.includes('/v1/data') && !path.includes('csv')) {
        // Same answer; request ids and timings in meta may differ between two requests.
        expect(JSON.parse(decoded).data).toEqual(JSON.parse(plain.body.toString()).data);
      } else if (path.includes('csv')) expect(decoded).toBe(plain.body.toString());
      else expect(decoded).toBe(plain.body.toString());
    }
  });

  it('leaves small answers alone (below the 1 KB threshold)', async () => {
    const res = await get('/health', { 'accept-encoding': 'br, gzip' });
    expect(res.body.length).toBeLessThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('regression: explore.js carries a strong ETag and revalidates to 304 (no-cache alone sent it again each time)', async () => {
    const first = await get('/explore/assets/explore.js');
    expect(first.headers['cache-control']).toBe('no-cache');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await get('/explore/assets/explore.js', { 'if-none-match': etag, 'accept-encoding': 'br' });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await get('/explore/assets/explore.js', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('streams a large streamed answer compressed (more than one chunk on the wire)', async () => {
    const res = await get('/v1/boundaries/county', { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['content-length']).toBeUndefined(); // chunked: sent as it is produced
    expect(res.chunks).toBeGreaterThan(1);
    expect(JSON.parse(zlib.gunzipSync(res.body).toString()).features.length).toBeGreaterThan(3000);
  });
});
