// The stand-in's ACS table-based Summary File (www2.census.gov/programs-surveys/acs/summary_file/),
// in the format "Using the American Community Survey Table-Based Summary File: What Data Users Need
// to Know" (U.S. Census Bureau, October 2023) and the release's table-based documentation describe
// (docs/sources.md, "ACS Summary File"):
//   …/{YYYY}/table-based-SF/data/5YRData/acsdt5y{YYYY}-{table}.dat   GEO_ID|{T}_E001|{T}_M001|…
//   …/{YYYY}/table-based-SF/documentation/Geos{YYYY}5YR.txt          FILEID|STUSAB|SUMLEVEL|COMPONENT|…|GEO_ID|NAME|…
// pipe-delimited, a header row, one row per geography of every summary level (also levels and
// geographic components the service does not read: a place, a state's urban part), estimates and
// MOEs only, the special values in the value fields, empty fields where a table is not tabulated.
//
// The geographies are real codes (2020 definitions) from ../shared/census's centers of population,
// CBSA delineation and 118th Congress list, at the scale a use chooses (a few states for the
// suite; the nation, ~332,000 geographies, for bench:national-build). The values are the
// stand-in's own truth, a fast hash of (seed, geography, cell), never Census figures.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { SHARED_CENSUS } from '../paths.js';

export type SfLevel = 'nation' | 'state' | 'county' | 'metro' | 'cd' | 'tract' | 'block_group' | 'other';

export interface SfGeography {
  level: SfLevel;
  sumlevel: string;
  component: string;
  geoId: string;
  /** Our key (`tract:11001000100`); '' for geographies the service does not read. */
  key: string;
  state: string;
  stusab: string;
  name: string;
}

export interface SummaryFileTruthOptions {
  seed: number;
  vintage: number;
  /** 2-digit state FIPS to publish (undefined: every state, DC and Puerto Rico). */
  states?: string[];
  /** At most this many metros (undefined: all 935 of the July 2023 delineation). */
  metros?: number;
  /** Table id → number of estimates (B25003 → 3: B25003_E001…E003). */
  tables: Record<string, number>;
}

const csv = (rel: string): string[][] => {
  const raw = readFileSync(path.join(SHARED_CENSUS, rel));
  const text = rel.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return text
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/\r$/, '').split(','));
};

/** Quoted CSV (the CBSA list and the cd118 list have commas in titles). */
const quoted = (rel: string): string[][] => {
  const raw = readFileSync(path.join(SHARED_CENSUS, rel));
  const text = rel.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return text
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => [...l.replace(/\r$/, '').matchAll(/("([^"]*)"|[^,]*)(,|$)/g)].map((m) => m[2] ?? m[1]!).slice(0, -1));
};

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function mix(a: number): number {
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  a = Math.imul(a, 0xc2b2ae35);
  a ^= a >>> 16;
  return a >>> 0;
}

/** One cell's published text: E and M ('' = empty field). */
export interface SfCell {
  E: string;
  M: string;
}

export class SummaryFileTruth {
  readonly geographies: SfGeography[];
  /** Geographies the service reads, by key. */
  readonly byKey = new Map<string, SfGeography>();
  private readonly index = new Map<SfGeography, number>();

  constructor(readonly opts: SummaryFileTruthOptions) {
    this.geographies = universe(opts);
    this.geographies.forEach((g, i) => {
      this.index.set(g, i);
      if (g.key) this.byKey.set(g.key, g);
    });
  }

  get dataset(): 'acs5' {
    return 'acs5';
  }

  variables(table: string): string[] {
    return Array.from({ length: this.opts.tables[table] ?? 0 }, (_, i) => `${table}_${String(i + 1).padStart(3, '0')}E`);
  }

  /** The published text of one cell: mostly plain integers, some special values, some not tabulated. */
  cellAt(geoIndex: number, column: number): SfCell {
    const h = mix(mix(this.opts.seed ^ Math.imul(geoIndex + 1, 0x9e3779b1)) ^ column);
    const kind = h % 25;
    if (kind === 0) return { E: '-666666666', M: '-222222222' }; // not computable
    if (kind === 1) return { E: String((h >>> 7) % 250_000), M: '-555555555' }; // controlled
    if (kind === 2) return { E: '', M: '' }; // not tabulated for this geography
    if (kind === 3) return { E: '-999999999', M: '-222222222' }; // insufficient sample
    return { E: String((h >>> 7) % 250_000), M: String((h >>> 3) % 9_000) };
  }

  cell(g: SfGeography, variable: string): SfCell {
    return this.cellAt(this.index.get(g)!, fnv(variable));
  }

  /** Files under the files base (`/programs-surveys/acs/summary_file/…`) → their lines, generated on demand. */
  file(urlPath: string): Generator<string> | undefined {
    const v = this.opts.vintage;
    const base = `/programs-surveys/acs/summary_file/${v}/table-based-SF`;
    if (urlPath === `${base}/documentation/Geos${v}5YR.txt`) return this.geosLines();
    const m = new RegExp(`^${base}/data/5YRData/acsdt5y${v}-([a-z0-9]+)\\.dat$`).exec(urlPath);
    const table = m && Object.keys(this.opts.tables).find((t) => t.toLowerCase() === m[1]);
    return table ? this.datLines(table) : undefined;
  }

  *geosLines(): Generator<string> {
    const cols = GEOS_COLUMNS;
    yield `${cols.join('|')}\n`;
    const at = Object.fromEntries(cols.map((c, i) => [c, i]));
    for (const g of this.geographies) {
      const f = new Array<string>(cols.length).fill('');
      f[at.FILEID!] = 'ACSSF';
      f[at.STUSAB!] = g.stusab;
      f[at.SUMLEVEL!] = g.sumlevel;
      f[at.COMPONENT!] = g.component;
      f[at.US!] = '1';
      f[at.STATE!] = g.state;
      f[at.GEO_ID!] = g.geoId;
      f[at.NAME!] = g.name;
      yield `${f.join('|')}\n`;
    }
  }

  *datLines(table: string): Generator<string> {
    const vars = this.variables(table);
    const header = ['GEO_ID'];
    for (let i = 1; i <= vars.length; i++)
      header.push(`${table}_E${String(i).padStart(3, '0')}`, `${table}_M${String(i).padStart(3, '0')}`);
    yield `${header.join('|')}\n`;
    const columns = vars.map(fnv);
    // Rows in blocks of lines: a national table is ~332,000 of them.
    let block = '';
    for (let gi = 0; gi < this.geographies.length; gi++) {
      let line = this.geographies[gi]!.geoId;
      for (const c of columns) {
        const cell = this.cellAt(gi, c);
        line += `|${cell.E}|${cell.M}`;
      }
      block += `${line}\n`;
      if (block.length > 1 << 16) {
        yield block;
        block = '';
      }
    }
    if (block) yield block;
  }
}

/** The 2022-on Geos header (see e.g. Geos20235YR.txt). */
const GEOS_COLUMNS = (
  'FILEID|STUSAB|SUMLEVEL|COMPONENT|US|REGION|DIVISION|STATE|COUNTY|COUSUB|PLACE|TRACT|BLKGRP|CONCIT|AIANHH|AIANHHFP|AIHHTLI|AITS|AITSFP|' +
  'ANRC|CBSA|CSA|METDIV|MACC|MEMI|NECTA|CNECTA|NECTADIV|UA|CDCURR|SLDU|SLDL|ZCTA5|SUBMCD|SDELM|SDSEC|SDUNI|UR|PCI|PUMA5|GEO_ID|NAME|BTTR|BTBG|TL_GEO_ID'
).split('|');

/** Every geography of the stand-in's release, in the file's order (by summary level, then code). */
function universe(opts: SummaryFileTruthOptions): SfGeography[] {
  const keep = (st: string) => opts.states === undefined || opts.states.includes(st);
  const states = csv('geo/cenpop/2020/state.csv').filter((r) => keep(r[0]!));
  const stateName = new Map(states.map((r) => [r[0]!, r[1]!]));
  const stusab = new Map(quoted('geo/cd118/cd118_list.csv').map((r) => [r[1]!, r[2]!]));
  const ab = (st: string) => stusab.get(st) ?? 'XX';
  const out: SfGeography[] = [];
  const add = (g: Omit<SfGeography, 'component'> & { component?: string }) => out.push({ component: '00', ...g });
  add({ level: 'nation', sumlevel: '010', geoId: '0100000US', key: 'nation:1', state: '', stusab: 'US', name: 'United States' });
  // A geographic component of the nation the service does not read (the real file has several).
  add({
    level: 'other',
    sumlevel: '010',
    component: '89',
    geoId: '0100089US',
    key: '',
    state: '',
    stusab: 'US',
    name: 'United States -- American Indian Reservation and Trust Land -- Federal',
  });
  for (const [st, name] of stateName) {
    add({ level: 'state', sumlevel: '040', geoId: `0400000US${st}`, key: `state:${st}`, state: st, stusab: ab(st), name });
    add({
      level: 'other',
      sumlevel: '040',
      component: '01',
      geoId: `0400001US${st}`,
      key: '',
      state: st,
      stusab: ab(st),
      name: `${name} -- Urban`,
    });
  }
  const counties = csv('geo/cenpop/2020/county.csv.gz').filter((r) => keep(r[0]!));
  const countyName = new Map<string, string>();
  for (const [st, co, coname, stname] of counties) {
    const name = `${coname} County, ${stname}`;
    countyName.set(`${st}${co}`, name);
    add({ level: 'county', sumlevel: '050', geoId: `0500000US${st}${co}`, key: `county:${st}${co}`, state: st!, stusab: ab(st!), name });
  }
  for (const [st] of stateName)
    add({
      level: 'other',
      sumlevel: '160',
      geoId: `1600000US${st}99999`,
      key: '',
      state: st,
      stusab: ab(st),
      name: `Stand-in Place, ${stateName.get(st)}`,
    });
  const cbsas = new Map<string, string>();
  for (const r of quoted('geo/cbsa/list1_2023.csv.gz')) {
    if (!/^\d{5}$/.test(r[0] ?? '') || cbsas.has(r[0]!)) continue;
    cbsas.set(r[0]!, `${r[3]} ${r[4]!.startsWith('Metro') ? 'Metro' : 'Micro'} Area`);
  }
  const metroComponent = opts.vintage >= 2023 ? 'M7' : 'M6';
  for (const [code, name] of [...cbsas].slice(0, opts.metros ?? cbsas.size))
    add({
      level: 'metro',
      sumlevel: '310',
      component: '00',
      geoId: `310${metroComponent}00US${code}`,
      key: `metro:${code}`,
      state: '',
      stusab: 'US',
      name,
    });
  for (const r of quoted('geo/cd118/cd118_list.csv').filter((x) => keep(x[1]!)))
    add({ level: 'cd', sumlevel: '500', geoId: `5001800US${r[0]}`, key: `cd:${r[0]}`, state: r[1]!, stusab: r[2]!, name: r[6]! });
  const tractName = (t: string) => `Census Tract ${String(Number(t.slice(0, 4)))}${t.slice(4) === '00' ? '' : `.${t.slice(4)}`}`;
  const names = new Map<string, string>();
  for (const [st, co, tr] of csv('geo/cenpop/2020/tract.csv.gz').filter((r) => keep(r[0]!))) {
    const county = countyName.get(`${st}${co}`) ?? `County ${co}, ${stateName.get(st!)}`;
    const name = `${tractName(tr!)}; ${county.replace(', ', '; ')}`;
    names.set(`${st}${co}${tr}`, name);
    add({
      level: 'tract',
      sumlevel: '140',
      geoId: `1400000US${st}${co}${tr}`,
      key: `tract:${st}${co}${tr}`,
      state: st!,
      stusab: ab(st!),
      name,
    });
  }
  for (const [st, co, tr, bg] of csv('geo/cenpop/2020/block_group.csv.gz').filter((r) => keep(r[0]!))) {
    const code = `${st}${co}${tr}${bg}`;
    const name = `Block Group ${bg}; ${names.get(`${st}${co}${tr}`) ?? tractName(tr!)}`;
    add({
      level: 'block_group',
      sumlevel: '150',
      geoId: `1500000US${code}`,
      key: `block_group:${code}`,
      state: st!,
      stusab: ab(st!),
      name,
    });
  }
  return out;
}

/** `fn`'s answer to a files-base path: the file's bytes, for the census emulator (test scale). */
export function summaryFileAnswer(truth: SummaryFileTruth, urlPath: string): { status: number; body: Buffer; type: string } | undefined {
  const lines = truth.file(urlPath);
  if (!lines) return undefined;
  return { status: 200, body: Buffer.from([...lines].join(''), 'utf8'), type: 'text/plain' };
}

/**
 * The Summary File alone on a loopback port, streamed (a national table is hundreds of MB and is
 * never held whole): `filesBase` is the URL to give `--files-base`. For bench:national-build.
 */
export async function startSummaryFileServer(
  truth: SummaryFileTruth,
): Promise<{ filesBase: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const p = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(p);
    const lines = truth.file(p);
    if (!lines) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<!DOCTYPE html><html><title>404 Not Found</title></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    const pump = () => {
      for (let r = lines.next(); !r.done; r = lines.next()) if (!res.write(r.value)) return void res.once('drain', pump);
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    filesBase: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
