// How a request names itself (src/http/request-target.ts): absolute-form targets, as clients
// behind a forward proxy send them, are served like their path (was: 500 "Invalid URL", and
// streamed answers cut off after the 200); the Host that goes into links and the dashboard's URLs
// is a host[:port] or the request is refused with 400 (was: `Host: evil.example/x?y=` became
// links.self `http://evil.example/x?y=…`).
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAVY_VARIABLES } from '../../bench/lib/heavy-request.js';
import { isValidHost } from '../../src/http/request-target.js';
import { startService, type Service } from '../support/service.js';

let svc: Service;
let port = 0;
beforeAll(async () => {
  svc = await startService();
  await svc.app.listen({ port: 0, host: '127.0.0.1' });
  port = (svc.app.server.address() as net.AddressInfo).port;
});
afterAll(async () => svc?.close());

/** One request written byte for byte; resolves with everything the server sent until it closed. */
function raw(request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('close', () => resolve(out));
    socket.on('error', () => resolve(out));
  });
}

function parse(text: string): { status: number; head: string; body: string } {
  const i = text.indexOf('\r\n\r\n');
  const head = text.slice(0, i);
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), head, body: text.slice(i + 4) };
}

describe('absolute-form request targets', () => {
  it('are routed by their path; links use the target authority', async () => {
    const r = parse(
      await raw(
        `GET http://127.0.0.1:${port}/v1/variables?limit=2 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-API-Key: ${svc.keys.pro}\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body);
    expect(body.links.self).toBe(`http://127.0.0.1:${port}/v1/variables?limit=2`);
    expect(body.data.length).toBeGreaterThan(0);
  });

  it('the target authority, not the Host header, is the one linked (RFC 9112 §3.2.2)', async () => {
    const r = parse(
      await raw(
        `GET http://api.example:8080/v1/topics HTTP/1.1\r\nHost: other.example\r\nX-API-Key: ${svc.keys.pro}\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).links.self).toBe('http://api.example:8080/v1/topics');
  });

  it('userinfo in the target does not reach links', async () => {
    const r = parse(
      await raw(
        `GET http://a@evil.example/v1/topics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${svc.keys.pro}\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).links.self).toBe('http://evil.example/v1/topics');
  });

  it('a streamed answer is complete JSON', async () => {
    const path = `/v1/data?variables=${HEAVY_VARIABLES.join(',')}&geo=state:*&dataset=acs1&vintage=2018`;
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      // Node's client writes `path` into the request line as given: an absolute-form target.
      const req = http.request(
        { host: '127.0.0.1', port, path: `http://127.0.0.1:${port}${path}`, headers: { 'x-api-key': svc.keys.enterprise }, agent: false },
        (res) => {
          let b = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (b += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    const parsed = JSON.parse(body);
    expect(parsed.data.length).toBeGreaterThan(2_000); // the streamed path
    expect(decodeURIComponent(parsed.links.self)).toBe(`http://127.0.0.1:${port}${path}`);
  });

  it('a target that is not a URL is a 4xx problem, never a 500', async () => {
    for (const target of ['http://[bad/v1/topics', 'http:///', 'nonsense']) {
      const r = parse(await raw(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${svc.keys.pro}\r\nConnection: close\r\n\r\n`));
      expect(r.status, target).toBeGreaterThanOrEqual(400);
      expect(r.status, target).toBeLessThan(500);
      expect(r.head).toMatch(/application\/problem\+json/i);
    }
  });
});

describe('the Host header', () => {
  const topics = (host: string) => svc.app.inject({ url: '/v1/topics', headers: { host, 'x-api-key': svc.keys.pro } });

  it('with a path, query or userinfo is refused with 400 and never echoed', async () => {
    for (const host of [
      'evil.example/x?y=',
      'a@evil.example',
      'evil.example#frag',
      'evil.example:80:81',
      'evil example',
      'evil.example\\x',
    ]) {
      const res = await topics(host);
      expect(res.statusCode, host).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ type: expect.stringMatching(/bad-request$/) });
      expect(res.body).not.toContain('evil');
    }
  });

  it('a host name, IPv4 or IPv6 literal with an optional port goes into links as it is', async () => {
    for (const host of ['api.example', 'api.example:8443', '10.0.0.1:3000', '[::1]:3000', 'census_api.internal']) {
      const res = await topics(host);
      expect(res.statusCode, host).toBe(200);
      expect(res.json().links.self).toBe(`http://${host}/v1/topics`);
    }
  });

  it('/dashboard/session builds api_base_url and mcp_url from a valid Host only', async () => {
    const bad = await svc.app.inject({ url: '/dashboard/session', headers: { host: 'evil.example/x?y=' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).not.toContain('evil');
    const good = await svc.app.inject({ url: '/dashboard/session', headers: { host: 'api.example:8443' } });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toMatchObject({ api_base_url: 'http://api.example:8443', mcp_url: 'http://api.example:8443/mcp' });
  });

  it('HTTP/1.0 without a Host: links name the address the request came in on', async () => {
    const r = parse(await raw(`GET /v1/variables?limit=1 HTTP/1.0\r\nX-API-Key: ${svc.keys.pro}\r\n\r\n`));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).links.self).toBe(`http://127.0.0.1:${port}/v1/variables?limit=1`);
  });

  it('isValidHost accepts host[:port] only', () => {
    expect(isValidHost('a.b.example:65535')).toBe(true);
    expect(isValidHost('a..b')).toBe(false);
    expect(isValidHost('')).toBe(false);
    expect(isValidHost('a:')).toBe(false);
    expect(isValidHost('[::1')).toBe(false);
  });
});

describe('with BASE_URL', () => {
  let based: Service;
  beforeAll(async () => {
    based = await startService({ config: { BASE_URL: 'https://census.example.org/api' } });
  });
  afterAll(async () => based?.close());

  it('links are built from BASE_URL whatever the (valid) Host', async () => {
    const res = await based.app.inject({ url: '/v1/topics', headers: { host: 'internal:3000', 'x-api-key': based.keys.pro } });
    expect(res.statusCode).toBe(200);
    expect(res.json().links.self).toBe('https://census.example.org/api/v1/topics');
    const s = await based.app.inject({ url: '/dashboard/session', headers: { host: 'internal:3000' } });
    expect(s.json()).toMatchObject({ api_base_url: 'https://census.example.org', mcp_url: 'https://census.example.org/mcp' });
  });
});
