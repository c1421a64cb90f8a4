// Draining an HTTP server for shutdown without losing an answered response.
//
// `http.Server.close()` (what `fastify.close()` calls) also destroys every connection it deems
// idle, at that moment, and Node counts a keep-alive connection as idle as soon as its response
// is *finished* — handed to the socket — even when megabytes of it are still queued in user space.
// Six 19 MB answers in flight were cut off at 4–9 MB that way, 40 ms after SIGTERM. And
// connections that became idle later were not closed at all, holding the process for the whole
// grace period. So we track connections and responses ourselves:
//
//   - stop accepting (the listening socket closes; existing connections stay);
//   - idle connections are ended with `socket.end()` (which sends what is queued, then FIN) one turn
//     later, once requests already in the kernel have been read (see drain());
//   - responses still in progress finish (streams included); their connections get
//     `Connection: close` when headers are not yet sent, and are ended when the response is done;
//   - `drained` resolves when the last response has closed;
//   - at the grace limit what is left is listed (for the log) and destroyed.
import type http from 'node:http';
import net from 'node:net';
import type { Socket } from 'node:net';
import { redactSecrets } from '../presentation/credentials.js';

export interface InFlightRequest {
  request_id: string | null;
  method: string;
  url: string;
  elapsed_ms: number;
  /** Bytes already written to the connection (headers included). */
  bytes_sent: number;
}

interface Entry {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  started: number;
  bytesBefore: number;
}

export class Drainer {
  private readonly active = new Map<Socket, number>();
  private readonly inflight = new Set<Entry>();
  private draining = false;
  private waiters: Array<() => void> = [];

  constructor(private readonly server: http.Server) {
    server.on('connection', (socket: Socket) => {
      this.active.set(socket, 0);
      socket.once('close', () => this.active.delete(socket));
    });
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const socket = req.socket;
      this.active.set(socket, (this.active.get(socket) ?? 0) + 1);
      const entry: Entry = { req, res, started: performance.now(), bytesBefore: socket.bytesWritten };
      this.inflight.add(entry);
      if (this.draining) res.shouldKeepAlive = false;
      res.once('close', () => {
        this.inflight.delete(entry);
        const left = Math.max(0, (this.active.get(socket) ?? 1) - 1);
        if (this.active.has(socket)) this.active.set(socket, left);
        if (this.draining && left === 0) socket.end();
        if (this.inflight.size === 0) for (const w of this.waiters.splice(0)) w();
      });
    });
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  /** Stop accepting and close idle connections; resolves when no response is in progress. */
  drain(): Promise<void> {
    if (!this.draining) {
      this.draining = true;
      // net.Server's close: stops listening without http.Server's destroy-what-looks-idle step.
      net.Server.prototype.close.call(this.server);
      for (const e of this.inflight) if (!e.res.headersSent) e.res.shouldKeepAlive = false;
      // Idle connections are ended one turn later, after the poll phase: a request whose bytes are
      // already in the kernel (sent before the signal, not yet read because the signal's callback
      // ran first or the loop was busy) is read and parsed there, so its connection is no longer
      // idle. Ended at once, such a connection got a FIN, and then a reset when the server found
      // the unread request: the client's ECONNRESET with no response, for a request sent well
      // before SIGTERM. (A request only partly arrived by then can still meet the FIN: telling it
      // apart would need a 'data' listener, which takes every connection off the parser's fast path.)
      setImmediate(() => {
        for (const [socket, n] of this.active) if (n === 0) socket.end();
      });
    }
    if (this.inflight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Wait (at most `ms`) until no connection has bytes queued in user space: from then on the
   * kernel delivers them, and then the FIN, even after the process exits.
   */
  async flushed(ms: number): Promise<void> {
    const end = Date.now() + ms;
    const pending = () => [...this.active.keys()].some((s) => !s.destroyed && s.writableLength > 0);
    while (pending() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  }

  /** What is still in progress, for the log at the grace limit. */
  leftovers(): InFlightRequest[] {
    const now = performance.now();
    return [...this.inflight].map((e) => ({
      request_id: (e.res.getHeader('x-request-id') as string | undefined) ?? null,
      method: e.req.method ?? '',
      // The log's one redaction rule: `key=` of a Census-API URL and encoded names (`k%65y=`) included.
      url: redactSecrets(e.req.url ?? ''),
      elapsed_ms: Math.round(now - e.started),
      bytes_sent: e.req.socket.bytesWritten - e.bytesBefore,
    }));
  }

  /** Abort everything still open (grace elapsed). */
  destroyAll(): void {
    for (const socket of this.active.keys()) socket.destroy();
  }
}
