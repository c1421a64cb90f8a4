// A TCP proxy on a loopback port that can be cut and restored: the outage of a dependency (the
// PostgreSQL accounts store, an object store) as a client sees it — connections reset, new ones
// refused — without touching the dependency itself.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Reset every open connection and refuse new ones. */
  cut(): Promise<void>;
  /** Accept connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const make = () =>
    net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  let server = make();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  let up = true;
  const stop = async () => {
    if (!up) return;
    up = false;
    for (const s of sockets) s.resetAndDestroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return {
    port,
    cut: stop,
    async restore() {
      if (up) return;
      server = make();
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
      up = true;
    },
    close: stop,
  };
}
