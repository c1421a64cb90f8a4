// Address → coordinates → geographies. Sources: exact OpenAddresses points first, then TIGER
// ADDRFEAT range interpolation. Candidates are checked against the parsed ZIP and state; what
// remains after de-duplication is one match, an ambiguous set, or no match with a reason.
import { parseAddress, STATES, type ParsedAddress } from '../../domain/address/parse.js';
import type { AddrEdge, AddrPoint } from '../../domain/address/types.js';
import type { BoundaryFiles } from '../boundaries/files.js';
import { fitsSide, interpolate } from '../../domain/geocode/interpolate.js';
import type { GeocodeGeographies, LevelMatch, PointGeocoder } from './point-geocoder.js';

/** exact: a point with this very number; range_point: a building point whose label range
 * ("1016-18") holds the number; interpolated: placed along a TIGER address range. */
export type MatchQuality = 'exact' | 'range_point' | 'interpolated';
const QUALITY_RANK: Record<MatchQuality, number> = { exact: 0, range_point: 1, interpolated: 2 };

export interface AddressCandidate {
  matched_address: string;
  coordinates: { lat: number; lng: number };
  quality: MatchQuality;
  source: string;
  zip: string | null;
  zip_source: 'source' | 'input_checked' | null;
  county: string | null;
  state: string | null;
}

export interface AddressResult {
  status: 'matched' | 'ambiguous' | 'no_match';
  reason: string | null;
  parsed: ParsedAddress | null;
  match: AddressCandidate | null;
  candidates: AddressCandidate[];
  geographies: GeocodeGeographies | null;
}

const DEDUPE_M = 100;

type RawCandidate = Omit<AddressCandidate, 'county' | 'state' | 'matched_address'> & { label: string; fullname: string };

export class AddressGeocoder {
  private constructor(
    private readonly points: Map<string, { p: AddrPoint; source: string }[]>,
    private readonly edges: Map<string, { e: AddrEdge; source: string }[]>,
    private readonly zctaCounties: Record<string, string[]>,
    readonly coverage: string[],
  ) {}

  static async load(store: BoundaryFiles): Promise<AddressGeocoder> {
    const points = new Map<string, { p: AddrPoint; source: string }[]>();
    const edges = new Map<string, { e: AddrEdge; source: string }[]>();
    let zcta: Record<string, string[]> = {};
    for (const a of store.index.address) {
      const data = JSON.parse((await store.readFile(a.path)).toString('utf8')) as unknown;
      if (a.kind === 'openaddresses') for (const p of data as AddrPoint[]) push(points, p.street, { p, source: a.source });
      else if (a.kind === 'addrfeat') for (const e of data as AddrEdge[]) push(edges, e.street, { e, source: a.source });
      else zcta = data as Record<string, string[]>;
    }
    return new AddressGeocoder(points, edges, zcta, store.index.address.filter((a) => a.kind !== 'zcta_counties').map(coverageLabel));
  }

  geocode(input: string, geo: PointGeocoder): AddressResult {
    const parsed = parseAddress(input);
    if (!parsed.ok) return miss(null, `unparseable address: ${parsed.reason}`, []);
    const a = parsed.address;
    const n = a.number.lo;
    const raw: RawCandidate[] = [];
    for (const { p, source } of this.points.get(a.street_key) ?? []) {
      const quality: MatchQuality | null =
        p.label === a.number.label ? 'exact' : p.lo <= n && n <= p.hi && p.lo !== p.hi ? 'range_point' : null;
      if (quality)
        raw.push({
          label: p.label,
          fullname: p.fullname,
          coordinates: { lat: p.lat, lng: p.lon },
          quality,
          source,
          zip: p.zip,
          zip_source: p.zip ? 'source' : null,
        });
    }
    for (const { e, source } of this.edges.get(a.street_key) ?? []) {
      for (const which of ['left', 'right'] as const) {
        const side = e[which];
        if (side && fitsSide(side, n)) {
          raw.push({
            label: String(n),
            fullname: e.fullname,
            coordinates: interpolate(e.coords, side, which, n),
            quality: 'interpolated',
            source,
            zip: side.zip,
            zip_source: side.zip ? 'source' : null,
          });
        }
      }
    }
    const streetKnown = this.points.has(a.street_key) || this.edges.has(a.street_key);
    if (raw.length === 0) {
      return miss(
        a,
        streetKnown
          ? `no address point or range holds number ${a.number.label} on ${a.street_key}`
          : `street "${a.street_key}" is outside the address coverage (${this.coverage.join(', ')})`,
        [],
      );
    }
    let cands: AddressCandidate[] = raw.map((r) => {
      const g = geo.locate(r.coordinates.lat, r.coordinates.lng);
      const county = g.county.key ? g.county.key.slice(7) : null;
      const state = g.state.key ? g.state.key.slice(6) : null;
      return {
        matched_address: '',
        coordinates: r.coordinates,
        quality: r.quality,
        source: r.source,
        zip: r.zip,
        zip_source: r.zip_source,
        county,
        state,
        _label: r.label,
        _name: r.fullname,
      } as AddressCandidate & { _label: string; _name: string };
    });
    const all = cands;
    if (a.state) cands = cands.filter((c) => c.state === STATES[a.state!]);
    if (a.zip) {
      const zip = a.zip;
      cands = cands.filter((c) => (c.zip ? c.zip === zip : c.county !== null && (this.zctaCounties[zip] ?? []).includes(c.county)));
      for (const c of cands)
        if (!c.zip) {
          c.zip = zip;
          c.zip_source = 'input_checked';
        }
    }
    cands = dedupe(cands.sort((x, y) => QUALITY_RANK[x.quality] - QUALITY_RANK[y.quality]));
    for (const c of [...cands, ...all] as (AddressCandidate & { _label: string; _name: string })[]) {
      if (!c.matched_address) {
        const st = Object.entries(STATES).find(([, f]) => f === c.state)?.[0] ?? '';
        c.matched_address = `${c._label} ${c._name}${a.unit ? ` ${a.unit}` : ''}, ${st}${c.zip ? ` ${c.zip}` : ''}`.trim();
      }
    }
    const strip = (c: AddressCandidate): AddressCandidate => {
      const { _label, _name, ...rest } = c as AddressCandidate & { _label: string; _name: string };
      return rest;
    };
    if (cands.length === 0) {
      return miss(
        a,
        `the address exists only outside the given ${[a.zip ? `ZIP ${a.zip}` : '', a.state ? `state ${a.state}` : ''].filter(Boolean).join(' / ')}`,
        dedupe(all).map(strip),
      );
    }
    const best = cands[0]!;
    return {
      status: cands.length === 1 ? 'matched' : 'ambiguous',
      reason: cands.length === 1 ? null : `${cands.length} distinct places match; add a ZIP or state to choose`,
      parsed: a,
      match: strip(best),
      candidates: cands.map(strip),
      geographies: geo.locate(best.coordinates.lat, best.coordinates.lng),
    };
  }
}

/** A data set as users know it ("TIGER/Line address ranges tl_2021_30059"), not a path in our source tree. */
function coverageLabel(a: { kind: string; source: string }): string {
  const name = (a.source.split('/').pop() ?? a.source).replace(/(_addrfeat)?\.(zip|csv|csv\.gz)$/, '');
  return `${a.kind === 'addrfeat' ? 'TIGER/Line address ranges' : 'OpenAddresses points'} ${name}`;
}

function miss(parsed: ParsedAddress | null, reason: string, candidates: AddressCandidate[]): AddressResult {
  return { status: 'no_match', reason, parsed, match: null, candidates, geographies: null };
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

/** Several source points for one building (within 100 m) collapse into the first, best one. */
function dedupe(cs: AddressCandidate[]): AddressCandidate[] {
  const out: AddressCandidate[] = [];
  for (const c of cs) {
    const near = out.find((o) => distM(o.coordinates, c.coordinates) < DEDUPE_M);
    if (!near) out.push(c);
  }
  return out;
}

function distM(p: { lat: number; lng: number }, q: { lat: number; lng: number }): number {
  const kx = 111_320 * Math.cos((p.lat * Math.PI) / 180);
  return Math.hypot((p.lng - q.lng) * kx, (p.lat - q.lat) * 111_320);
}

export type { LevelMatch };
