// Waiting for a freshly started service's first answer. The service opens its stores before it
// listens, so once it listens a 503 means a store is missing or damaged (a synthetic build made
// without `--with` has no catalog): polling on would wait forever. A 503 that /health cannot
// explain by a fault that may clear (damaged files, unavailable partitions) stops at once; one it
// can is given `timeoutMs` to clear. Either way the error carries the service's own reason.
import http from 'node:http';

export class ServiceNotReadyError extends Error {
  override name = 'ServiceNotReadyError';
}

interface Answer {
  status: number;
  body: string;
}

function get(port: number, p: string, key: string | undefined, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: p, headers: key ? { 'x-api-key': key } : {}, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: -1, body: '' }));
      })
      .on('error', () => resolve({ status: -1, body: '' }));
  });
}

/** The `detail` of a problem+json body, else the body's start. */
function detailOf(body: string): string {
  try {
    const j = JSON.parse(body) as { detail?: string; title?: string };
    return j.detail ?? j.title ?? body.slice(0, 200);
  } catch {
    return body.slice(0, 200);
  }
}

/** What /health says is wrong; `clearable` when it names a fault the service recovers from by itself. */
async function healthReason(port: number, agent: http.Agent): Promise<{ text: string; clearable: boolean }> {
  const h = await get(port, '/health', undefined, agent);
  try {
    const j = JSON.parse(h.body) as {
      status?: string;
      data?: { build_id?: string; synthetic?: boolean } | null;
      damaged_files?: Array<{ file: string; reason: string }>;
      unavailable_partitions?: Array<{ dataset: string; vintage: number; level: string; reason: string }>;
    };
    const damaged = (j.damaged_files ?? []).map((f) => `${f.file}: ${f.reason}`);
    const parts = (j.unavailable_partitions ?? []).map((p) => `${p.dataset}/${p.vintage}/${p.level}: ${p.reason}`);
    const build = j.data ? `build ${j.data.build_id}${j.data.synthetic ? ' (synthetic)' : ''}` : 'no data build loaded';
    const faults = [...damaged, ...parts];
    return {
      text: `/health: ${j.status ?? h.status}, ${build}${faults.length ? `; ${faults.slice(0, 5).join('; ')}` : ''}`,
      clearable: faults.length > 0,
    };
  } catch {
    return { text: `/health answered ${h.status}`, clearable: false };
  }
}

/**
 * Poll `path` until it answers 200. Connection refused (not listening yet) is retried until
 * `exited()` reports the process gone; any status other than 200/503 and any 503 that does not
 * clear throw ServiceNotReadyError naming the reason.
 */
export async function awaitFirstAnswer(opts: {
  port: number;
  path: string;
  key: string;
  agent: http.Agent;
  exited: () => number | null;
  timeoutMs?: number;
  pollMs?: number;
}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  let first503: number | undefined;
  for (;;) {
    const code = opts.exited();
    if (code !== null) throw new ServiceNotReadyError(`service exited with ${code}`);
    const r = await get(opts.port, opts.path, opts.key, opts.agent);
    if (r.status === 200) return;
    if (r.status > 0 && r.status !== 503) throw new ServiceNotReadyError(`first request answered ${r.status}: ${detailOf(r.body)}`);
    if (r.status === 503) {
      first503 ??= Date.now();
      const health = await healthReason(opts.port, opts.agent);
      if (!health.clearable || Date.now() - first503 > timeoutMs)
        throw new ServiceNotReadyError(
          `the service answers 503 to ${opts.path}: ${detailOf(r.body)} (${health.text})` +
            (health.clearable ? `; still after ${Math.round(timeoutMs / 1000)} s` : '; this does not clear by waiting'),
        );
    }
    await new Promise((res) => setTimeout(res, opts.pollMs ?? 20));
  }
}
