// The stand-in's www2.census.gov cartographic boundary files (issue 34 §1): `/geo/tiger/GENZ{YYYY}/
// shp/cb_{YYYY}_{ss}_{tract|bg}_500k.zip` per state and `cb_{YYYY}_us_{level}_{scale}.zip`
// nationally, each an ESRI Shapefile zip (.shp/.shx/.dbf/.prj/.cpg, shapefile-writer.ts) with the
// attribute fields of the Bureau's file layouts ("Cartographic Boundary Files — Shapefile",
// docs/sources.md): AFFGEOID up to GENZ2022, GEOIDFQ from GENZ2023; NAMELSAD, STUSPS, STATE_NAME
// and NAMELSADCO in the 2020-definition files.
//
// Shapes come from a deterministic truth a test can reason about: states side by side in a row of
// 4°×2° boxes from (-110°, 30°), each state's counties as equal vertical strips of its box, each
// county's tracts as vertical strips of the county, each tract's block groups as horizontal strips
// of the tract. So `tractBox` / `blockGroupBox` give a box whose centre lies in exactly that tract
// and block group. Nothing here is a real boundary.
import type { EmulatorAnswer } from '../census-emulator.js';
import { shapefileZip, type DbfField, type ShapeRecord } from './shapefile-writer.js';

export type Box = [number, number, number, number];

export interface ShapeTruthOptions {
  /** State FIPS → [name, USPS code]. */
  states: Record<string, [string, string]>;
  /** County GEOID (5) → NAMELSAD ("Travis County"), in order within each state. */
  counties: Record<string, string>;
  /** Tract GEOID (11) → its block-group codes ("1", "2", …). */
  tracts: Record<string, string[]>;
  /** CBSA code → [NAME, member county GEOIDs]. */
  cbsas?: Record<string, [string, string[]]>;
  /** Congressional districts per state (strips of the state's box); default 1. */
  districts?: Record<string, number>;
  /**
   * Vertices of each tract and block-group ring (default 5: the bare box). More makes the real
   * files' weight (the Bureau's 500k block groups have a few hundred): the box's edges cut into
   * steps that dent inwards, so every centre stays in its own shape.
   */
  vertices?: number;
}

const ORIGIN: [number, number] = [-110, 30];
const STATE_W = 4;
const STATE_H = 2;

const strip = (b: Box, i: number, n: number, vertical: boolean): Box => {
  if (vertical) {
    const w = (b[2] - b[0]) / n;
    return [b[0] + w * i, b[1], i === n - 1 ? b[2] : b[0] + w * (i + 1), b[3]];
  }
  const h = (b[3] - b[1]) / n;
  return [b[0], b[1] + h * i, b[2], i === n - 1 ? b[3] : b[1] + h * (i + 1)];
};
const ringOf = (b: Box): Array<[number, number]> => [
  [b[0], b[1]],
  [b[0], b[3]],
  [b[2], b[3]],
  [b[2], b[1]],
  [b[0], b[1]],
];
/** `b`'s ring with about `n` vertices: each edge cut in equal steps, every other point dented inwards by 1% of the box. */
function denseRingOf(b: Box, n: number): Array<[number, number]> {
  const per = Math.max(1, Math.floor((n - 1) / 4));
  const dent = Math.min(b[2] - b[0], b[3] - b[1]) * 0.01;
  const corners = ringOf(b);
  const inward: Array<[number, number]> = [
    [dent, 0],
    [0, -dent],
    [-dent, 0],
    [0, dent],
  ];
  const out: Array<[number, number]> = [];
  for (let e = 0; e < 4; e++) {
    const [x0, y0] = corners[e]!;
    const [x1, y1] = corners[e + 1]!;
    for (let k = 0; k < per; k++) {
      const d = k % 2 === 1 ? inward[e]! : [0, 0];
      out.push([x0 + ((x1 - x0) * k) / per + d[0]!, y0 + ((y1 - y0) * k) / per + d[1]!]);
    }
  }
  out.push(corners[0]!);
  return out;
}

export const centreOf = (b: Box): { lat: number; lng: number } => ({ lng: (b[0] + b[2]) / 2, lat: (b[1] + b[3]) / 2 });

const tractName = (t: string) => `${String(Number(t.slice(0, 4)))}${t.slice(4) === '00' ? '' : `.${t.slice(4)}`}`;

export class ShapeTruth {
  constructor(readonly opts: ShapeTruthOptions) {}

  // Lists by parent and positions within them, made once (a national truth has 85,000 tracts).
  private memo = new Map<string, string[]>();
  private position = new Map<string, number>();
  private listOf(key: string, all: () => string[], prefix: string): string[] {
    let list = this.memo.get(key);
    if (!list) {
      list = all().filter((c) => c.startsWith(prefix));
      this.memo.set(key, list);
      list.forEach((c, i) => this.position.set(`${key}/${c}`, i));
    }
    return list;
  }
  private indexIn(key: string, list: string[], code: string): number {
    return this.position.get(`${key}/${code}`) ?? list.indexOf(code);
  }

  private stateCodes(): string[] {
    return this.listOf('states', () => Object.keys(this.opts.states).sort(), '');
  }

  stateBox(st: string): Box {
    const i = this.indexIn('states', this.stateCodes(), st);
    if (i < 0) throw new Error(`no state ${st} in the shape truth`);
    const x = ORIGIN[0] + i * STATE_W;
    return [x, ORIGIN[1], x + STATE_W, ORIGIN[1] + STATE_H];
  }

  countiesOf(st: string): string[] {
    return this.listOf(`counties:${st}`, () => Object.keys(this.opts.counties), st);
  }

  countyBox(geoid: string): Box {
    const st = geoid.slice(0, 2);
    const list = this.countiesOf(st);
    return strip(this.stateBox(st), this.indexIn(`counties:${st}`, list, geoid), list.length, true);
  }

  tractsOf(county: string): string[] {
    const st = county.slice(0, 2);
    const inState = this.listOf(`tracts:${st}`, () => Object.keys(this.opts.tracts), st);
    return this.listOf(`tracts:${county}`, () => inState, county);
  }

  tractBox(geoid: string): Box {
    const county = geoid.slice(0, 5);
    const list = this.tractsOf(county);
    return strip(this.countyBox(county), this.indexIn(`tracts:${county}`, list, geoid), list.length, true);
  }

  private smallRing(b: Box): Array<[number, number]> {
    const n = this.opts.vertices ?? 5;
    return n > 5 ? denseRingOf(b, n) : ringOf(b);
  }

  blockGroupBox(geoid: string): Box {
    const list = this.opts.tracts[geoid.slice(0, 11)] ?? [];
    return strip(this.tractBox(geoid.slice(0, 11)), list.indexOf(geoid.slice(11)), list.length, false);
  }

  /** The zip of one www2 path, or undefined when the truth has no such file. */
  file(p: string): Buffer | undefined {
    const m = /^\/geo\/tiger\/GENZ(\d{4})\/shp\/cb_\1_(us|\d\d)_(\w+?)_(500k|5m|20m)\.zip$/.exec(p);
    if (!m) return undefined;
    const [, y, scope, level, scale] = m as unknown as [string, string, string, string, string];
    const year = Number(y);
    const base = `cb_${year}_${scope}_${level}_${scale}`;
    const layout = LAYOUTS[level];
    if (!layout) return undefined;
    const records = scope === 'us' ? this.national(level) : this.perState(level, scope, scale);
    if (!records || records.length === 0 || (scope !== 'us' && scale !== '500k') || (level === 'nation' && scale === '500k'))
      return undefined;
    return shapefileZip(base, layout(year), records, year);
  }

  private perState(level: string, st: string, scale: string): ShapeRecord[] | undefined {
    if (scale !== '500k' || !this.opts.states[st]) return undefined;
    const [stateName, usps] = this.opts.states[st];
    const tracts = this.listOf(`tracts:${st}`, () => Object.keys(this.opts.tracts), st);
    const common = (geoid: string) => ({
      STATEFP: st,
      COUNTYFP: geoid.slice(2, 5),
      TRACTCE: geoid.slice(5, 11),
      STUSPS: usps,
      NAMELSADCO: this.opts.counties[geoid.slice(0, 5)] ?? '',
      STATE_NAME: stateName,
      ALAND: 1_000_000,
      AWATER: 0,
    });
    if (level === 'tract')
      return tracts.map((t) => ({
        rings: [this.smallRing(this.tractBox(t))],
        attributes: {
          ...common(t),
          AFFGEOID: `1400000US${t}`,
          GEOIDFQ: `1400000US${t}`,
          GEOID: t,
          NAME: tractName(t.slice(5)),
          NAMELSAD: `Census Tract ${tractName(t.slice(5))}`,
          LSAD: 'CT',
        },
      }));
    if (level === 'bg')
      return tracts.flatMap((t) =>
        (this.opts.tracts[t] ?? []).map((b) => ({
          rings: [this.smallRing(this.blockGroupBox(`${t}${b}`))],
          attributes: {
            ...common(t),
            BLKGRPCE: b,
            AFFGEOID: `1500000US${t}${b}`,
            GEOIDFQ: `1500000US${t}${b}`,
            GEOID: `${t}${b}`,
            NAME: b,
            NAMELSAD: `Block Group ${b}`,
            LSAD: 'BG',
          },
        })),
      );
    return undefined;
  }

  private national(level: string): ShapeRecord[] | undefined {
    const states = this.stateCodes();
    const stateAttrs = (st: string) => ({ STUSPS: this.opts.states[st]![1], STATE_NAME: this.opts.states[st]![0] });
    const fq = (sumlev: string, geoid: string) => ({ AFFGEOID: `${sumlev}US${geoid}`, GEOIDFQ: `${sumlev}US${geoid}` });
    const union = (boxes: Box[]): Box => [
      Math.min(...boxes.map((b) => b[0])),
      Math.min(...boxes.map((b) => b[1])),
      Math.max(...boxes.map((b) => b[2])),
      Math.max(...boxes.map((b) => b[3])),
    ];
    switch (level) {
      case 'nation':
        return [
          {
            rings: [ringOf(union(states.map((s) => this.stateBox(s))))],
            attributes: { ...fq('0100000', ''), GEOID: 'US', NAME: 'United States' },
          },
        ];
      case 'state':
        return states.map((st) => ({
          rings: [ringOf(this.stateBox(st))],
          attributes: {
            STATEFP: st,
            STATENS: '01779801',
            ...fq('0400000', st),
            GEOID: st,
            STUSPS: this.opts.states[st]![1],
            NAME: this.opts.states[st]![0],
            LSAD: '00',
            ALAND: 1,
            AWATER: 0,
          },
        }));
      case 'county':
        return Object.keys(this.opts.counties).map((c) => ({
          rings: [ringOf(this.countyBox(c))],
          attributes: {
            STATEFP: c.slice(0, 2),
            COUNTYFP: c.slice(2),
            COUNTYNS: '00000000',
            ...fq('0500000', c),
            GEOID: c,
            NAME: this.opts.counties[c]!.replace(/ (County|Parish|Borough)$/, ''),
            NAMELSAD: this.opts.counties[c]!,
            ...stateAttrs(c.slice(0, 2)),
            LSAD: '06',
            ALAND: 1,
            AWATER: 0,
          },
        }));
      case 'cbsa':
        return Object.entries(this.opts.cbsas ?? {}).map(([code, [name, members]]) => ({
          rings: [ringOf(union(members.map((c) => this.countyBox(c))))],
          attributes: {
            CSAFP: '',
            CBSAFP: code,
            ...fq('310M700', code),
            GEOID: code,
            NAME: name,
            NAMELSAD: `${name} Metro Area`,
            LSAD: 'M1',
            ALAND: 1,
            AWATER: 0,
          },
        }));
      case 'cd118':
        return states.flatMap((st) => {
          const n = this.opts.districts?.[st] ?? 1;
          return Array.from({ length: n }, (_, i) => {
            const fp = n === 1 ? '00' : String(i + 1).padStart(2, '0');
            return {
              rings: [ringOf(strip(this.stateBox(st), i, n, false))],
              attributes: {
                STATEFP: st,
                CD118FP: fp,
                ...fq('5001800', `${st}${fp}`),
                GEOID: `${st}${fp}`,
                NAMELSAD: n === 1 ? 'Congressional District (at Large)' : `Congressional District ${i + 1}`,
                ...stateAttrs(st),
                LSAD: 'C2',
                CDSESSN: '118',
                ALAND: 1,
                AWATER: 0,
              },
            };
          });
        });
      default:
        return undefined;
    }
  }
}

const C = (name: string, length: number): DbfField => ({ name, type: 'C', length });
const N = (name: string): DbfField => ({ name, type: 'N', length: 14 });
/** AFFGEOID up to GENZ2022, GEOIDFQ from GENZ2023 (the Bureau renamed the fully qualified GEOID). */
const FQ = (year: number, length: number) => C(year >= 2023 ? 'GEOIDFQ' : 'AFFGEOID', length);

/** The attribute fields of each cb file, per year, in the Bureau's order. */
const LAYOUTS: Record<string, (year: number) => DbfField[]> = {
  tract: (y) =>
    y >= 2020
      ? [
          C('STATEFP', 2),
          C('COUNTYFP', 3),
          C('TRACTCE', 6),
          FQ(y, 20),
          C('GEOID', 11),
          C('NAME', 100),
          C('NAMELSAD', 100),
          C('STUSPS', 2),
          C('NAMELSADCO', 100),
          C('STATE_NAME', 100),
          C('LSAD', 2),
          N('ALAND'),
          N('AWATER'),
        ]
      : [
          C('STATEFP', 2),
          C('COUNTYFP', 3),
          C('TRACTCE', 6),
          FQ(y, 20),
          C('GEOID', 11),
          C('NAME', 100),
          C('LSAD', 2),
          N('ALAND'),
          N('AWATER'),
        ],
  bg: (y) =>
    y >= 2020
      ? [
          C('STATEFP', 2),
          C('COUNTYFP', 3),
          C('TRACTCE', 6),
          C('BLKGRPCE', 1),
          FQ(y, 21),
          C('GEOID', 12),
          C('NAME', 100),
          C('NAMELSAD', 100),
          C('STUSPS', 2),
          C('NAMELSADCO', 100),
          C('STATE_NAME', 100),
          C('LSAD', 2),
          N('ALAND'),
          N('AWATER'),
        ]
      : [
          C('STATEFP', 2),
          C('COUNTYFP', 3),
          C('TRACTCE', 6),
          C('BLKGRPCE', 1),
          FQ(y, 21),
          C('GEOID', 12),
          C('NAME', 100),
          C('LSAD', 2),
          N('ALAND'),
          N('AWATER'),
        ],
  state: (y) => [
    C('STATEFP', 2),
    C('STATENS', 8),
    FQ(y, 11),
    C('GEOID', 2),
    C('STUSPS', 2),
    C('NAME', 100),
    C('LSAD', 2),
    N('ALAND'),
    N('AWATER'),
  ],
  county: (y) => [
    C('STATEFP', 2),
    C('COUNTYFP', 3),
    C('COUNTYNS', 8),
    FQ(y, 14),
    C('GEOID', 5),
    C('NAME', 100),
    C('NAMELSAD', 100),
    C('STUSPS', 2),
    C('STATE_NAME', 100),
    C('LSAD', 2),
    N('ALAND'),
    N('AWATER'),
  ],
  cbsa: (y) => [
    C('CSAFP', 3),
    C('CBSAFP', 5),
    FQ(y, 14),
    C('GEOID', 5),
    C('NAME', 100),
    C('NAMELSAD', 100),
    C('LSAD', 2),
    N('ALAND'),
    N('AWATER'),
  ],
  cd118: (y) => [
    C('STATEFP', 2),
    C('CD118FP', 2),
    FQ(y, 13),
    C('GEOID', 4),
    C('NAMELSAD', 100),
    C('STUSPS', 2),
    C('STATE_NAME', 100),
    C('LSAD', 2),
    C('CDSESSN', 3),
    N('ALAND'),
    N('AWATER'),
  ],
  nation: (y) => [FQ(y, 9), C('GEOID', 2), C('NAME', 100)],
};

const USPS: Record<string, string> = Object.fromEntries(
  (
    '01AL 02AK 04AZ 05AR 06CA 08CO 09CT 10DE 11DC 12FL 13GA 15HI 16ID 17IL 18IN 19IA 20KS 21KY 22LA 23ME 24MD 25MA 26MI 27MN 28MS ' +
    '29MO 30MT 31NE 32NV 33NH 34NJ 35NM 36NY 37NC 38ND 39OH 40OK 41OR 42PA 44RI 45SC 46SD 47TN 48TX 49UT 50VT 51VA 53WA 54WV 55WI 56WY 72PR'
  )
    .split(' ')
    .map((x) => [x.slice(0, 2), x.slice(2)]),
);

/**
 * The shapes of a Data API truth's geographies (census-standin.ts): its states, its counties
 * (named by the part of NAME before the state), its tracts and their block groups. So a stand-in
 * started without `shapes` still serves the cb files of what it publishes values for.
 */
export function shapesFromGeographies(geographies: Array<{ level: string; fips: string[]; name: string }>): ShapeTruthOptions {
  const states: ShapeTruthOptions['states'] = {};
  const counties: ShapeTruthOptions['counties'] = {};
  const tracts: ShapeTruthOptions['tracts'] = {};
  const named = new Map(geographies.map((g) => [`${g.level}:${g.fips.join('')}`, g.name]));
  const state = (st: string) => (states[st] ??= [named.get(`state:${st}`) ?? `State ${st}`, USPS[st] ?? '']);
  const county = (c: string) => {
    state(c.slice(0, 2));
    counties[c] ??= named.get(`county:${c}`)?.replace(/, [^,]+$/, '') ?? `County ${c.slice(2)}`;
  };
  for (const g of geographies) {
    const code = g.fips.join('');
    if (g.level === 'state') state(code);
    if (g.level === 'county') county(code);
    if (g.level === 'tract' || g.level === 'block_group') {
      county(code.slice(0, 5));
      const bgs = (tracts[code.slice(0, 11)] ??= []);
      if (g.level === 'block_group' && !bgs.includes(code.slice(11))) bgs.push(code.slice(11));
    }
  }
  // A tract published without block groups still gets one, so the bg file tiles the tract.
  for (const t of Object.keys(tracts)) if (tracts[t]!.length === 0) tracts[t]!.push('1');
  return { states, counties, tracts };
}

/** The stand-in's answer for a www2 path of a cartographic boundary file (undefined: not one of them). */
export function answerShapefile(truth: ShapeTruth, p: string): EmulatorAnswer | undefined {
  if (!p.startsWith('/geo/tiger/GENZ')) return undefined;
  const body = truth.file(p);
  if (!body) return { status: 404, body: '<!DOCTYPE html><html><title>404 Not Found</title></html>', type: 'text/html' };
  return { status: 200, body, type: 'application/zip' };
}
