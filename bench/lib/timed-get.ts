// One GET on loopback with an API key, timed and with its body counted but not kept (a 15 MB
// heavy answer would otherwise sit in the measuring process). Never rejects: a refused or reset
// connection is status -1.
import http from 'node:http';
import { nowMs } from './stats.js';

export function timedGet(port: number, p: string, key: string, agent: http.Agent): Promise<{ status: number; bytes: number; ms: number }> {
  const t = nowMs();
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: p, headers: { 'x-api-key': key }, agent }, (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: nowMs() - t }));
        res.on('error', () => resolve({ status: -1, bytes, ms: nowMs() - t }));
      })
      .on('error', () => resolve({ status: -1, bytes: 0, ms: nowMs() - t }));
  });
}
