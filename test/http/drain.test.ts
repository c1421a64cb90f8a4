// Draining for shutdown (src/http/drain.ts): a request already sent on an idle keep-alive
// connection when the drain starts is answered, not reset. The signal's callback can run before
// the socket's in the same turn of the event loop (or the loop was busy): the request is then in
// the kernel, unread, while the connection still looks idle (was: FIN, then a reset when the
// server found the request; the client's ECONNRESET with no response, seen for requests sent
// ~160 ms before SIGTERM).
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Drainer } from '../../src/http/drain.js';

let server: http.Server | undefined;
afterEach(() => server?.closeAllConnections());

const REQUEST = (n: number) => `GET /r${n} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

describe('Drainer', () => {
  it('answers a request that reached an idle connection before the drain, then closes it', async () => {
    server = http.createServer((req, res) => res.end(`answer ${req.url}`));
    const drainer = new Drainer(server);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;

    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let error: string | undefined;
    socket.on('data', (d) => (received += d));
    socket.on('error', (e) => (error = (e as NodeJS.ErrnoException).code));
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(REQUEST(1));
    while (!received.includes('answer /r1')) await new Promise((r) => setTimeout(r, 5));

    // The connection is idle. In one synchronous run: the next request goes out (into the kernel,
    // unread by the server), and the drain starts, as a SIGTERM handled first would start it.
    socket.write(REQUEST(2));
    const drained = drainer.drain();
    await closed;
    await drained;
    expect(error).toBeUndefined();
    // Answered whole, then the connection was closed by the server (awaited above).
    expect(received).toContain('answer /r2');
  });

  it('still ends a connection that stays idle, so it cannot hold the shutdown', async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    const drainer = new Drainer(server);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const socket = net.connect(port, '127.0.0.1');
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('data', () => {});
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(REQUEST(1));
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await drainer.drain();
    await closed;
    expect(Date.now() - t0).toBeLessThan(1_000);
  });
});
