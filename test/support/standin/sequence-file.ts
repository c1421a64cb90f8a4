// The stand-in's ACS sequence-based Summary File (5-year, 2010–2020 layout), generated from a
// deterministic truth, in the format each release's "ACS Summary File Technical Documentation" and
// "Understanding and Using the American Community Survey Summary File: What Data Users Need to
// Know" (September 2019) describe (docs/sources.md, "Sequence-based Summary File"):
//   …/summary_file/{Y}/documentation/user_tools/ACS_5yr_Seq_Table_Number_Lookup.txt
//   …/summary_file/{Y}/data/5_year_seq_by_state/{State}/{Tracts_Block_Groups_Only|All_Geographies_Not_Tracts_Block_Groups}/
//       g{Y}5{st}.csv            the state's geography file (every geography of the state, both folders)
//       {Y}5{st}{ssss}000.zip    e{Y}5{st}{ssss}000.txt + m{Y}5{st}{ssss}000.txt, the folder's rows
// (2010–2013 and 2014 at their own paths: etl/sources/sequence-file.ts, sequenceLayout). The
// nation's folder (`UnitedStates`, `us`) holds the nation, the states and the metros. Geography
// rows include what the service does not read (a state's urban component, a place) and the data
// files hold them too. Tables are packed into small sequences, so one table spans two sequences
// and sequences hold several tables; the lookup has a heading line (0.5) that holds no cell.
// Cells: mostly plain integers, the numeric jam codes, "." (unavailable), blanks (not tabulated).
//
// Geographies: real 2010-definition codes from ../shared/census's 2010 centers of population;
// values: the stand-in's own hash, never Census figures.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { SHARED_CENSUS } from '../paths.js';
import { SEQUENCE_STATES, sequenceLayout, type SequenceGroup } from '../../../etl/sources/sequence-file.js';

export type SqLevel = 'nation' | 'state' | 'county' | 'metro' | 'tract' | 'block_group' | 'other';

export interface SqGeography {
  level: SqLevel;
  sumlevel: string;
  component: string;
  /** The geography file's GEOID (`14000US11001000100`). */
  geoid: string;
  /** The Data API's GEO_ID (`1400000US11001000100`). */
  apiGeoId: string;
  /** Our key; '' for what the service does not read. */
  key: string;
  state: string;
  name: string;
  /** The folder whose files hold its rows, and its LOGRECNO there. */
  usps: string;
  group: SequenceGroup;
  logrecno: string;
}

export interface SequenceFileTruthOptions {
  seed: number;
  vintage: number;
  /** 2-digit state FIPS published. */
  states: string[];
  /** Table id → number of estimates. */
  tables: Record<string, number>;
  /** Cells per sequence (small, so that a table spans two). */
  sequenceCells?: number;
}

export interface SqCell {
  E: string;
  M: string;
}

const rows = (rel: string): string[][] =>
  gunzipSync(readFileSync(path.join(SHARED_CENSUS, rel)))
    .toString('utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/\r$/, '').split(','));

function mix(a: number): number {
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  a = Math.imul(a, 0xc2b2ae35);
  a ^= a >>> 16;
  return a >>> 0;
}

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A table's place: per sequence, its lines there and their start position. */
interface Placement {
  table: string;
  parts: Array<{ sequence: number; start: number; lines: number[] }>;
}

export class SequenceFileTruth {
  readonly geographies: SqGeography[];
  readonly byKey = new Map<string, SqGeography>();
  readonly placements: Placement[];
  /** Sequence → its cells. */
  readonly widths = new Map<number, number>();

  constructor(readonly opts: SequenceFileTruthOptions) {
    this.geographies = universe(opts);
    for (const g of this.geographies) if (g.key && !this.byKey.has(g.key) && g.usps !== 'us') this.byKey.set(g.key, g);
    for (const g of this.geographies) if (g.key && !this.byKey.has(g.key)) this.byKey.set(g.key, g);
    // Pack the tables into sequences of `sequenceCells`; a table larger than that spans several.
    const max = opts.sequenceCells ?? 2;
    this.placements = [];
    let seq = 1;
    let used = 0;
    for (const [table, n] of Object.entries(opts.tables)) {
      const p: Placement = { table, parts: [] };
      let line = 1;
      if (n <= max && used + n > max) {
        seq++;
        used = 0;
      }
      while (line <= n) {
        if (used === max) {
          seq++;
          used = 0;
        }
        const take = Math.min(n - line + 1, max - used);
        p.parts.push({ sequence: seq, start: 7 + used, lines: Array.from({ length: take }, (_, i) => line + i) });
        used += take;
        line += take;
        this.widths.set(seq, used);
      }
      this.placements.push(p);
    }
  }

  get dataset(): 'acs5' {
    return 'acs5';
  }

  variables(table: string): string[] {
    return Array.from({ length: this.opts.tables[table] ?? 0 }, (_, i) => `${table}_${String(i + 1).padStart(3, '0')}E`);
  }

  /** The published text of one cell of one geography. */
  cell(g: SqGeography, variable: string): SqCell {
    const h = mix(mix(this.opts.seed ^ fnv(`${g.usps}|${g.geoid}`)) ^ fnv(variable));
    const n = String((h >>> 7) % 250_000);
    switch (h % 25) {
      case 0:
        return { E: '-666666666', M: '-222222222' }; // not computable
      case 1:
        return { E: n, M: '-555555555' }; // controlled
      case 2:
        return { E: '', M: '' }; // not tabulated (filtered / geographic restriction)
      case 3:
        return { E: '-999999999', M: '-222222222' }; // insufficient sample
      case 4:
        return { E: '.', M: '.' }; // unavailable
      case 5:
        return { E: n, M: '.' }; // MOE unavailable
      default:
        return { E: n, M: String((h >>> 3) % 9_000) };
    }
  }

  lookupText(): string {
    const out = [
      'File ID,Table ID,Sequence Number,Line Number,Start Position,Total Cells in Table,Total Cells in Sequence,Table Title,Subject Area',
    ];
    const seqDone = new Set<number>();
    for (const p of this.placements) {
      const n = this.opts.tables[p.table]!;
      for (const part of p.parts) {
        const seq = String(part.sequence).padStart(4, '0');
        const width = seqDone.has(part.sequence) ? '' : String(this.widths.get(part.sequence));
        seqDone.add(part.sequence);
        out.push(`ACSSF,${p.table},${seq},,${part.start},${n} CELLS,${width},"STAND-IN TABLE ${p.table}, IN PARTS",Stand-in`);
        out.push(`ACSSF,${p.table},${seq},,,,,Universe:  Stand-in units,`);
        if (part === p.parts[0]) out.push(`ACSSF,${p.table},${seq},0.5,,,,"Heading, no cell",`);
        for (const l of part.lines) out.push(`ACSSF,${p.table},${seq},${l},,,,"Line ${l}, stand-in",`);
      }
    }
    return `${out.join('\r\n')}\r\n`;
  }

  /** The geography file of a folder: every geography of the state (or of the nation's file). */
  geographyText(usps: string): string {
    const lines: string[] = [];
    for (const g of this.geographies.filter((x) => x.usps === usps)) {
      const f = new Array<string>(53).fill('');
      f[0] = 'ACSSF';
      f[1] = usps.toUpperCase();
      f[2] = g.sumlevel;
      f[3] = g.component;
      f[4] = g.logrecno;
      f[9] = g.state;
      f[48] = g.geoid;
      f[49] = g.name.includes(',') ? `"${g.name}"` : g.name;
      lines.push(f.join(','));
    }
    return `${lines.join('\r\n')}\r\n`;
  }

  /** A sequence zip of a folder: the estimate and MOE files of its rows. */
  sequenceZip(usps: string, group: SequenceGroup, sequence: number): Uint8Array {
    const v = this.opts.vintage;
    const seq = String(sequence).padStart(4, '0');
    const cols: string[] = [];
    for (const p of this.placements)
      for (const part of p.parts)
        if (part.sequence === sequence) for (const l of part.lines) cols.push(`${p.table}_${String(l).padStart(3, '0')}E`);
    const e: string[] = [];
    const m: string[] = [];
    for (const g of this.geographies) {
      if (g.usps !== usps || g.group !== group) continue;
      const cells = cols.map((c) => this.cell(g, c));
      const lead = (t: string) => `ACSSF,${v}${t}5,${usps},000,${seq},${g.logrecno}`;
      e.push([lead('e'), ...cells.map((c) => c.E)].join(','));
      m.push([lead('m'), ...cells.map((c) => c.M)].join(','));
    }
    const enc = (ls: string[]) => new TextEncoder().encode(ls.length ? `${ls.join('\n')}\n` : '');
    return zipSync({ [`e${v}5${usps}${seq}000.txt`]: enc(e), [`m${v}5${usps}${seq}000.txt`]: enc(m) });
  }

  /** A files-base path's answer, or undefined when it is not one of this release's files. */
  file(urlPath: string): { body: Buffer; type: string } | undefined {
    const v = this.opts.vintage;
    const layout = sequenceLayout(v);
    if (urlPath === layout.lookup) return { body: Buffer.from(this.lookupText(), 'latin1'), type: 'text/plain' };
    const folders = [['us', 'UnitedStates'] as const, ...this.opts.states.map((s) => SEQUENCE_STATES[s]!)];
    for (const [usps, folder] of folders)
      for (const group of ['Tracts_Block_Groups_Only', 'All_Geographies_Not_Tracts_Block_Groups'] as const) {
        const dir = layout.folder(folder, group);
        if (!urlPath.startsWith(`${dir}/`)) continue;
        const name = urlPath.slice(dir.length + 1);
        if (name === `g${v}5${usps}.csv`) return { body: Buffer.from(this.geographyText(usps), 'latin1'), type: 'text/csv' };
        const z = new RegExp(`^${v}5${usps}(\\d{4})000\\.zip$`).exec(name);
        if (z && this.widths.has(Number(z[1])))
          return { body: Buffer.from(this.sequenceZip(usps, group, Number(z[1]))), type: 'application/zip' };
      }
    return undefined;
  }
}

/** Every geography of the release, in each file's LOGRECNO order. */
function universe(opts: SequenceFileTruthOptions): SqGeography[] {
  const keep = (st: string) => opts.states.includes(st);
  const stateName = new Map(
    readFileSync(path.join(SHARED_CENSUS, 'geo/cenpop/2010/state.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
      .filter((r) => keep(r[0]!))
      .map((r) => [r[0]!, r[1]!]),
  );
  const out: SqGeography[] = [];
  const counters = new Map<string, number>();
  const add = (g: Omit<SqGeography, 'logrecno' | 'apiGeoId'>) => {
    const n = (counters.get(g.usps) ?? 0) + 1;
    counters.set(g.usps, n);
    const at = g.geoid.indexOf('US');
    out.push({ ...g, logrecno: String(n).padStart(7, '0'), apiGeoId: `${g.geoid.slice(0, at)}00${g.geoid.slice(at)}` });
  };
  // The nation's file: the nation, an urban component, the states.
  const us = { usps: 'us', group: 'All_Geographies_Not_Tracts_Block_Groups' as const };
  add({ ...us, level: 'nation', sumlevel: '010', component: '00', geoid: '01000US', key: 'nation:1', state: '', name: 'United States' });
  add({ ...us, level: 'other', sumlevel: '010', component: '01', geoid: '01001US', key: '', state: '', name: 'United States -- Urban' });
  for (const [st, name] of stateName)
    add({ ...us, level: 'state', sumlevel: '040', component: '00', geoid: `04000US${st}`, key: `state:${st}`, state: st, name });
  const counties = rows('geo/cenpop/2010/county.csv.gz').filter((r) => keep(r[0]!));
  const tracts = rows('geo/cenpop/2010/tract.csv.gz').filter((r) => keep(r[0]!));
  const bgs = rows('geo/cenpop/2010/block_group.csv.gz').filter((r) => keep(r[0]!));
  for (const [st, name] of stateName) {
    const usps = SEQUENCE_STATES[st]![0];
    const other = { usps, group: 'All_Geographies_Not_Tracts_Block_Groups' as const };
    const small = { usps, group: 'Tracts_Block_Groups_Only' as const };
    add({ ...other, level: 'state', sumlevel: '040', component: '00', geoid: `04000US${st}`, key: `state:${st}`, state: st, name });
    add({
      ...other,
      level: 'other',
      sumlevel: '040',
      component: '01',
      geoid: `04001US${st}`,
      key: '',
      state: st,
      name: `${name} -- Urban`,
    });
    const coName = new Map<string, string>();
    for (const [, co, coname] of counties.filter((r) => r[0] === st)) {
      const n = st === '11' ? `${coname}, ${name}` : `${coname} County, ${name}`;
      coName.set(co!, n);
      add({
        ...other,
        level: 'county',
        sumlevel: '050',
        component: '00',
        geoid: `05000US${st}${co}`,
        key: `county:${st}${co}`,
        state: st,
        name: n,
      });
    }
    add({
      ...other,
      level: 'other',
      sumlevel: '160',
      component: '00',
      geoid: `16000US${st}99999`,
      key: '',
      state: st,
      name: `Stand-in place, ${name}`,
    });
    const tractName = (t: string) => `Census Tract ${Number(t.slice(0, 4))}${t.slice(4) === '00' ? '' : `.${t.slice(4)}`}`;
    for (const [, co, tr] of tracts.filter((r) => r[0] === st))
      add({
        ...small,
        level: 'tract',
        sumlevel: '140',
        component: '00',
        geoid: `14000US${st}${co}${tr}`,
        key: `tract:${st}${co}${tr}`,
        state: st,
        name: `${tractName(tr!)}, ${coName.get(co!)}`,
      });
    for (const [, co, tr, bg] of bgs.filter((r) => r[0] === st))
      add({
        ...small,
        level: 'block_group',
        sumlevel: '150',
        component: '00',
        geoid: `15000US${st}${co}${tr}${bg}`,
        key: `block_group:${st}${co}${tr}${bg}`,
        state: st,
        name: `Block Group ${bg}, ${tractName(tr!)}, ${coName.get(co!)}`,
      });
  }
  return out;
}

/** The emulator's answer to a files-base path (test scale: whole bodies). */
export function sequenceFileAnswer(truth: SequenceFileTruth, urlPath: string): { status: number; body: Buffer; type: string } | undefined {
  const f = truth.file(urlPath);
  return f && { status: 200, ...f };
}
