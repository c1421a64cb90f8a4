// A local stand-in for api.census.gov and www2.census.gov, answering from the shared source tree
// the way the real services answer: Census Data API queries (`get=` / `for=`, the 50-variable
// limit, 204 for no data, plain-text 400s), groups.json listings, and reference files at their
// www2 paths. Faults can be injected per URL to exercise retries and validation.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { StepLogger } from '../../etl/step.js';
import { SHARED_CENSUS } from './paths.js';

export type FaultKind =
  | '429' // Too Many Requests with Retry-After (seconds, `retryAfter`, default "1")
  | '503' // Service Unavailable, HTML body
  | 'html200' // an HTML error page with status 200
  | 'body' // status 200 with `body` (a malformed API response)
  | 'truncate' // headers with the full Content-Length, half the body, then the socket is destroyed
  | 'reset'; // the socket is destroyed before any answer

export interface Fault {
  /** Substring of (or pattern for) the decoded request URL, path and query. */
  match: string | RegExp;
  kind: FaultKind;
  /** How many matching requests get the fault (default 1). */
  times?: number;
  retryAfter?: string;
  body?: string;
}

export interface EmulatorOptions {
  root?: string;
  /** Answer `group(X)` with the 50-variable 400 when X has more columns than this. */
  maxGroupWidth?: number;
  /** When set, a request without this key gets the API's "Invalid Key" HTML page (status 200). */
  requireKey?: string;
  /**
   * Answers Data API requests (`/data/…`) instead of the shared tree, after the key checks: the
   * seeded stand-in (census-standin.ts) plugs in here and keeps the faults and the key pages.
   */
  dataApi?: (u: URL) => EmulatorAnswer;
  /** Answers www2 paths (after `/www2`) before the shared tree; undefined = not its file. */
  www2?: (p: string) => EmulatorAnswer | undefined;
  /** Every answer waits this long (a slow API). */
  delayMs?: number;
}

export type EmulatorAnswer = { status: number; body: string | Buffer; type?: string; location?: string };

export interface RequestRecord {
  url: string;
  status: number;
  fault?: FaultKind;
}

export interface CensusEmulator {
  apiBase: string;
  filesBase: string;
  requests: RequestRecord[];
  inject(fault: Fault): void;
  close(): Promise<void>;
}

const GEO: Record<string, { level: string; columns: string[] }> = {
  us: { level: 'nation', columns: ['us'] },
  state: { level: 'state', columns: ['state'] },
  county: { level: 'county', columns: ['state', 'county'] },
  'metropolitan statistical area/micropolitan statistical area': {
    level: 'metro',
    columns: ['metropolitan statistical area/micropolitan statistical area'],
  },
};

type Cell = string | null;
interface Table {
  raw: Buffer;
  header: string[];
  rows: Cell[][];
}

const CENPOP_CODES: Record<string, string> = { ST: 'state.csv', CO: 'county.csv.gz', TR: 'tract.csv.gz', BG: 'block_group.csv.gz' };

/** www2 path → [file in the source tree, prepend a UTF-8 BOM as the 2020 census.gov files do]. */
function www2File(p: string): [string, boolean] | undefined {
  const fixed: Record<string, string> = {
    '/geo/docs/reference/state.txt': 'geo/state.txt',
    '/geo/docs/reference/codes/files/national_county.txt': 'geo/national_county_2010.txt',
    '/programs-surveys/metro-micro/geographies/reference-files/2023/delineation-files/list1_2023.xlsx': 'geo/cbsa/list1_2023.xlsx',
    '/geo/tiger/GENZ2020/shp/cb_2020_us_state_20m.zip': 'boundaries/cb_2020_us_state_20m.zip',
    '/geo/tiger/TIGER2021/ADDRFEAT/tl_2021_30059_addrfeat.zip': 'geocode/tiger/tl_2021_30059_addrfeat.zip',
  };
  if (fixed[p]) return [fixed[p], false];
  const cd = /^\/geo\/tiger\/TIGER2022\/CD\/(tl_2022_\d\d_cd118\.zip)$/.exec(p);
  if (cd) return [`boundaries/cd118/${cd[1]}`, false];
  const cp = /^\/geo\/docs\/reference\/cenpop(2010|2020)\/(?:county\/|tract\/|blkgrp\/)?CenPop\1_Mean_(ST|CO|TR|BG)\.txt$/.exec(p);
  if (cp) return [`geo/cenpop/${cp[1]}/${CENPOP_CODES[cp[2]!]}`, cp[1] === '2020'];
  return undefined;
}

/** The shape of the API's key pages (an HTML fragment served with status 200). */
const KEY_PAGE = (title: string, detail: string) =>
  `<div class="flex-container content">\n  <div class="content-wrap center">\n    <h1>${title}</h1>\n    <p>\n      A valid <em>key</em> must be included with each data API request.\n      ${detail}\n    </p>\n  </div>\n</div>\n`;

const serialize = (header: string[], rows: Cell[][]) => `[${[header, ...rows].map((r) => JSON.stringify(r)).join(',\n')}]`;

export async function startCensusEmulator(opts: EmulatorOptions = {}): Promise<CensusEmulator> {
  const root = opts.root ?? SHARED_CENSUS;
  const faults: Array<Fault & { left: number }> = [];
  const requests: RequestRecord[] = [];
  const tables = new Map<string, Table | null>();

  const table = (rel: string): Table | null => {
    if (!tables.has(rel)) {
      const file = path.join(root, rel);
      if (!fs.existsSync(file)) tables.set(rel, null);
      else {
        const raw = gunzipSync(fs.readFileSync(file));
        const [header, ...rows] = JSON.parse(raw.toString('utf8')) as [string[], ...Cell[][]];
        tables.set(rel, { raw, header, rows });
      }
    }
    return tables.get(rel)!;
  };
  const groupsOf = (vintage: string, dataset: string): string[] => {
    const dir = path.join(root, 'api', vintage, 'acs', dataset);
    if (!fs.existsSync(dir)) return [];
    const names = new Set<string>();
    for (const level of fs.readdirSync(dir)) for (const f of fs.readdirSync(path.join(dir, level))) names.add(f.replace(/\.json\.gz$/, ''));
    return [...names].sort();
  };

  type Answer = EmulatorAnswer;
  const text = (status: number, body: string): Answer => ({ status, body, type: 'text/plain;charset=utf-8' });
  const json = (body: string | Buffer): Answer => ({ status: 200, body, type: 'application/json;charset=utf-8' });

  function answerData(vintage: string, dataset: string, q: URLSearchParams): Answer {
    const groups = groupsOf(vintage, dataset);
    if (groups.length === 0) return { status: 404, body: '<html><body>404 Not Found</body></html>', type: 'text/html' };
    const get = q.get('get');
    const forClause = q.get('for');
    if (!get) return text(400, "error: missing 'get' parameter");
    const geo = forClause?.endsWith(':*') ? GEO[forClause.slice(0, -2)] : undefined;
    if (!geo) return text(400, 'error: unknown/unsupported geography heirarchy');
    const items = get.split(',');
    if (items.length > 50) return text(400, "error: 'get' is limited to 50 variables");
    const dir = `api/${vintage}/acs/${dataset}/${geo.level}`;
    const g = geo.columns.length;
    // Each requested column comes from the file of its group; NAME/GEO_ID from the first group used.
    const groupOf = (item: string) => /^group\((\w+)\)$/.exec(item)?.[1] ?? item.split('_')[0]!;
    const plain = (item: string) => item === 'NAME' || item === 'GEO_ID';
    for (const item of items) if (!plain(item) && !groups.includes(groupOf(item))) return text(400, `error: unknown variable '${item}'`);
    const used = items.filter((i) => !plain(i)).map((i) => table(`${dir}/${groupOf(i)}.json.gz`));
    if (used.some((t) => t === null)) return { status: 204, body: '' };
    const first = (used[0] ?? groups.map((n) => table(`${dir}/${n}.json.gz`)).find((t) => t !== null)) as Table | undefined;
    if (!first) return { status: 204, body: '' };
    const cols: Array<{ name: string; t: Table; i: number }> = [];
    for (const item of items) {
      const t = plain(item) ? first : table(`${dir}/${groupOf(item)}.json.gz`)!;
      if (item.startsWith('group(')) {
        if (opts.maxGroupWidth !== undefined && t.header.length - g > opts.maxGroupWidth)
          return text(400, "error: 'get' is limited to 50 variables");
        if (items.length === 1) return json(t.raw); // a whole group: the stored response itself
        t.header.slice(0, -g).forEach((c, i) => cols.push({ name: c, t, i }));
        continue;
      }
      const i = t.header.indexOf(item);
      if (i < 0 || i >= t.header.length - g) return text(400, `error: unknown variable '${item}'`);
      cols.push({ name: item, t, i });
    }
    const seen = new Set<string>();
    const unique = cols.filter((c) => !seen.has(c.name) && seen.add(c.name));
    const byKey = new Map<Table, Map<string, Cell[]>>();
    const key = (r: Cell[]) => r.slice(-g).join('|');
    const rowOf = (t: Table, k: string) => {
      if (!byKey.has(t)) byKey.set(t, new Map(t.rows.map((r) => [key(r), r])));
      return byKey.get(t)!.get(k);
    };
    const rows = first.rows.map((r) => {
      const k = key(r);
      return [...unique.map((c) => rowOf(c.t, k)?.[c.i] ?? null), ...r.slice(-g)];
    });
    return json(serialize([...unique.map((c) => c.name), ...geo.columns], rows));
  }

  function answer(u: URL): Answer {
    const p = decodeURIComponent(u.pathname);
    if (p.startsWith('/www2/')) {
      const own = opts.www2?.(p.slice('/www2'.length));
      if (own) return own;
      const hit = www2File(p.slice('/www2'.length));
      if (!hit || !fs.existsSync(path.join(root, hit[0])))
        return { status: 404, body: '<!DOCTYPE html><html><title>404 Not Found</title></html>', type: 'text/html' };
      let body = fs.readFileSync(path.join(root, hit[0]));
      if (hit[0].endsWith('.gz')) body = gunzipSync(body);
      if (hit[1]) body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
      return { status: 200, body, type: 'application/octet-stream' };
    }
    if (p === '/data/missing_key.html')
      return { status: 200, body: KEY_PAGE('Missing Key', 'You did not include a key with this request.'), type: 'text/html' };
    if (opts.requireKey !== undefined && u.searchParams.get('key') === null)
      return { status: 302, body: '', location: '/data/missing_key.html' };
    if (opts.requireKey !== undefined && u.searchParams.get('key') !== opts.requireKey)
      return {
        status: 200,
        body: KEY_PAGE('Invalid Key', 'You included a key with this request, however, it is not valid.'),
        type: 'text/html',
      };
    if (opts.dataApi) return opts.dataApi(u);
    const m = /^\/data\/(\d{4})\/acs\/(acs1|acs5)(\/groups\.json|\/groups\/(\w+)\.json)?$/.exec(p);
    if (!m) return { status: 404, body: '<html><body>404 Not Found</body></html>', type: 'text/html' };
    const [, vintage, dataset, meta, group] = m as unknown as [string, string, string, string?, string?];
    const base = `${u.origin}/data/${vintage}/acs/${dataset}`;
    if (meta === '/groups.json')
      return json(
        JSON.stringify({
          groups: groupsOf(vintage, dataset).map((name) => ({ name, description: '', variables: `${base}/groups/${name}.json` })),
        }),
      );
    if (group) {
      const files = ['nation', 'state', 'county', 'metro'].map((l) => table(`api/${vintage}/acs/${dataset}/${l}/${group}.json.gz`));
      const t = files.find((f) => f !== null);
      if (!t) return { status: 404, body: '<html><body>404 Not Found</body></html>', type: 'text/html' };
      const geoCols = new Set(Object.values(GEO).flatMap((x) => x.columns));
      const variables = Object.fromEntries(
        t.header.filter((c) => !geoCols.has(c)).map((c) => [c, { label: c, group: c === 'NAME' || c === 'GEO_ID' ? 'N/A' : group }]),
      );
      return json(JSON.stringify({ variables }));
    }
    return answerData(vintage, dataset, u.searchParams);
  }

  const server = http.createServer((req, res) => {
    if (opts.delayMs) {
      setTimeout(() => handle(req, res), opts.delayMs);
      return;
    }
    handle(req, res);
  });
  function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const u = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const shown = decodeURIComponent(req.url ?? '');
    const fault = faults.find((f) => f.left > 0 && (typeof f.match === 'string' ? shown.includes(f.match) : f.match.test(shown)));
    if (fault) fault.left--;
    const record = (status: number) => requests.push({ url: shown, status, fault: fault?.kind });
    switch (fault?.kind) {
      case '429':
        record(429);
        res.writeHead(429, { 'retry-after': fault.retryAfter ?? '1', 'content-type': 'text/plain' }).end('Too Many Requests');
        return;
      case '503':
        record(503);
        res.writeHead(503, { 'content-type': 'text/html' }).end('<html><title>503 Service Unavailable</title></html>');
        return;
      case 'html200':
        record(200);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!DOCTYPE html><html><head><title>Census Data API: maintenance</title></head><body>Back soon</body></html>');
        return;
      case 'body':
        record(200);
        res.writeHead(200, { 'content-type': 'application/json;charset=utf-8' }).end(fault.body ?? '');
        return;
      case 'reset':
        record(0);
        req.socket.destroy();
        return;
      default:
    }
    let a: Answer;
    try {
      a = answer(u);
    } catch (err) {
      a = text(500, `error: ${(err as Error).message}`);
    }
    const body = typeof a.body === 'string' ? Buffer.from(a.body, 'utf8') : a.body;
    record(a.status);
    const headers: http.OutgoingHttpHeaders = { 'content-length': body.length };
    if (a.type) headers['content-type'] = a.type;
    if (a.location) headers.location = a.location;
    if (fault?.kind === 'truncate') {
      res.writeHead(a.status, headers);
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
      return;
    }
    res.writeHead(a.status, a.status === 204 ? {} : headers).end(a.status === 204 ? undefined : body);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    apiBase: origin,
    filesBase: `${origin}/www2`,
    requests,
    inject: (f) => faults.push({ ...f, left: f.times ?? 1 }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** A StepLogger that keeps every message, to assert on warnings (and on what is never logged). */
export function captureLog(): { log: StepLogger; lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    log: {
      info: (m) => {
        lines.push(m);
      },
      warn: (m) => {
        lines.push(`warning: ${m}`);
      },
      progress: (label, total) => {
        lines.push(`${label}: ${total}`);
        return { increment: () => {}, stop: () => {} };
      },
    },
  };
}
