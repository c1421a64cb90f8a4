// Coordinates → containing geographies, one answer per level with the boundary vintage used.
// Edge rule: a point on a shared edge or vertex is inside every polygon that touches it; the
// answer is the hit with the LOWEST geo key (string order), so results are deterministic.
import type { BoundaryFiles } from '../boundaries/files.js';
import type { BoundaryFileEntry } from '../boundaries/manifest.js';
import { PointLayer, PolygonLayer, type Hit } from './layers.js';

export type GeocodeMethod = 'polygon' | 'from_county' | 'from_state' | 'at_large_state' | 'nearest_population_center';

export interface LevelMatch {
  key: string;
  name: string;
  method: GeocodeMethod;
  boundary_vintage: string;
  /** Vintage of the geography definitions (2010 tracts, 2020 population centers). */
  definition_vintage?: string;
  source: string;
  /** True when the answer may be wrong near a boundary (coarse shapes, nearest point). */
  approximate: boolean;
}
export interface LevelMiss {
  key: null;
  reason: string;
}
export type LevelAnswer = LevelMatch | LevelMiss;

export const GEOCODE_LEVELS = ['nation', 'state', 'county', 'metro', 'cd', 'tract', 'tract_2020', 'block_group'] as const;
export type GeocodeLevel = (typeof GEOCODE_LEVELS)[number];
export type GeocodeGeographies = Record<GeocodeLevel, LevelAnswer>;

const AT_LARGE: Record<string, string> = { '11': 'cd:1198', '72': 'cd:7298' };

interface Layer<T> {
  layer: T;
  entry: { boundary_vintage: string; source: string; definition_vintage?: string; true_resolution?: string };
}

export class PointGeocoder {
  private constructor(
    private readonly state: Layer<PolygonLayer>,
    private readonly nation: Layer<PolygonLayer>,
    private readonly county: Layer<PolygonLayer>,
    private readonly county2017: Layer<PolygonLayer>,
    private readonly metro: Layer<PolygonLayer>,
    private readonly cd: Layer<PolygonLayer>,
    private readonly cdCoarse: Layer<PolygonLayer>,
    private readonly tract: Layer<PolygonLayer>,
    private readonly tractCenters: Layer<PointLayer>,
    private readonly bgCenters: Layer<PointLayer>,
    private readonly cdStates: Set<string>,
    private readonly tractStates: Set<string>,
  ) {}

  /** Loads the finest file per level (the geocoder never uses derived simplifications). */
  static async load(store: BoundaryFiles): Promise<PointGeocoder> {
    const pick = (pred: (f: BoundaryFileEntry) => boolean, what: string): BoundaryFileEntry => {
      const e = store.index.files.find(pred);
      if (!e) throw new Error(`boundaries index has no ${what}`);
      return e;
    };
    const poly = async (e: BoundaryFileEntry): Promise<Layer<PolygonLayer>> => ({
      layer: new PolygonLayer(await store.file(e.path)),
      entry: e,
    });
    const pts = async (level: 'tract' | 'block_group'): Promise<Layer<PointLayer>> => {
      const c = store.centroidEntry(level);
      if (!c || c.kind !== 'population_center') throw new Error(`boundaries index has no ${level} population centers`);
      return {
        layer: new PointLayer(await store.file(c.path)),
        entry: { boundary_vintage: c.vintage, source: c.source, definition_vintage: c.vintage },
      };
    };
    const [state, nation, county, county2017, metro, cd, cdCoarse, tract, tractCenters, bgCenters] = await Promise.all([
      poly(pick((f) => f.level === 'state' && f.default && f.resolution === '20m', 'state 20m')),
      poly(pick((f) => f.level === 'nation' && f.default, 'nation')),
      poly(pick((f) => f.level === 'county' && f.default, 'county')),
      poly(pick((f) => f.level === 'county' && f.edition === '2017', 'county 2017')),
      poly(pick((f) => f.level === 'metro' && f.default, 'metro')),
      poly(pick((f) => f.level === 'cd' && f.resolution === '500k', 'cd 500k')),
      poly(pick((f) => f.level === 'cd' && !f.served, 'cd supplement')),
      poly(pick((f) => f.level === 'tract' && f.resolution === '500k', 'tract 500k')),
      pts('tract'),
      pts('block_group'),
    ]);
    return new PointGeocoder(
      state,
      nation,
      county,
      county2017,
      metro,
      cd,
      cdCoarse,
      tract,
      tractCenters,
      bgCenters,
      cd.layer.keyPrefixes(2),
      tract.layer.keyPrefixes(2),
    );
  }

  /** Decode every polygon now (for benchmarks and warm starts). */
  warm(): void {
    for (const l of [this.state, this.nation, this.county, this.county2017, this.metro, this.cd, this.cdCoarse, this.tract])
      l.layer.decodeAll();
  }

  private match(l: Layer<PolygonLayer | PointLayer>, hit: Hit, method: GeocodeMethod, approximate: boolean): LevelMatch {
    const p = l.layer.properties(hit.index);
    const m: LevelMatch = {
      key: hit.key,
      name: p.name,
      method,
      boundary_vintage: l.entry.boundary_vintage,
      source: p.source,
      approximate,
    };
    if (l.entry.definition_vintage) m.definition_vintage = l.entry.definition_vintage;
    return m;
  }

  locate(lat: number, lng: number): GeocodeGeographies {
    const county = this.county.layer.containing(lng, lat)[0];
    const stateHit = this.state.layer.containing(lng, lat)[0];
    const out = {} as GeocodeGeographies;
    out.county = county
      ? this.match(this.county, county, 'polygon', false)
      : {
          key: null,
          reason: stateHit
            ? 'inside a state outline but outside every county shape (coastline differences between sources)'
            : 'not inside any county: at sea or outside the United States',
        };

    // County shapes (10m-class) are finer than the 20m state file, so the county decides the state.
    const stFips = county ? county.key.slice(7, 9) : stateHit?.key.slice(6);
    if (county) {
      const idx = this.state.layer.file.indexOf(`state:${stFips}`);
      out.state =
        idx === undefined
          ? {
              key: `state:${stFips}`,
              name: '',
              method: 'from_county',
              boundary_vintage: this.county.entry.boundary_vintage,
              source: 'county GEOID prefix (no state shape for this territory)',
              approximate: false,
            }
          : {
              ...this.match(this.state, { key: `state:${stFips}`, index: idx }, 'from_county', false),
              boundary_vintage: this.county.entry.boundary_vintage,
            };
    } else {
      out.state = stateHit
        ? this.match(this.state, stateHit, 'polygon', true)
        : { key: null, reason: 'not inside any state: at sea or outside the United States' };
    }
    const nationHit = stFips ? null : this.nation.layer.containing(lng, lat)[0];
    out.nation = stFips
      ? {
          key: 'nation:1',
          name: 'United States',
          method: 'from_state',
          boundary_vintage: out.state.key ? (out.state as LevelMatch).boundary_vintage : '',
          source: 'containing state',
          approximate: false,
        }
      : nationHit
        ? this.match(this.nation, nationHit, 'polygon', true)
        : { key: null, reason: 'outside the United States land area (at sea or abroad)' };

    const metro = this.metro.layer.containing(lng, lat)[0];
    out.metro = metro
      ? this.match(this.metro, metro, 'polygon', false)
      : {
          key: null,
          reason: county ? 'the county is not part of any metropolitan or micropolitan statistical area' : 'no containing county',
        };

    out.cd = this.locateCd(lat, lng, stFips);
    out.tract = this.locateTract(lat, lng, stFips);

    // 2020 tracts and block groups: no polygons exist; nearest 2020 population center in the
    // containing county (CT: legacy county, as the 2020 codes use it). Always approximate.
    const countyFor2020 = stFips === '09' ? this.county2017.layer.containing(lng, lat)[0] : county;
    const t20 = countyFor2020 ? this.tractCenters.layer.nearest(lng, lat, countyFor2020.key.slice(7)) : null;
    out.tract_2020 = t20
      ? this.match(this.tractCenters, t20, 'nearest_population_center', true)
      : { key: null, reason: county ? 'no 2020 tract population center in the containing county' : 'no containing county' };
    const bg = t20 ? this.bgCenters.layer.nearest(lng, lat, t20.key.slice(6)) : null;
    out.block_group = bg
      ? this.match(this.bgCenters, bg, 'nearest_population_center', true)
      : { key: null, reason: 'no block-group boundaries exist in the sources and no 2020 tract was found for a nearest-center estimate' };
    return out;
  }

  private locateCd(lat: number, lng: number, st: string | undefined): LevelAnswer {
    if (!st) return { key: null, reason: 'not inside any state' };
    const atLarge = AT_LARGE[st];
    if (atLarge) {
      const i = this.cd.layer.file.indexOf(atLarge);
      return {
        key: atLarge,
        name: i === undefined ? '' : this.cd.layer.properties(i).name,
        method: 'at_large_state',
        boundary_vintage: this.cd.entry.boundary_vintage,
        source: 'single delegate district covering the whole state/territory',
        approximate: false,
      };
    }
    const useCoarse = !this.cdStates.has(st);
    const layer = useCoarse ? this.cdCoarse : this.cd;
    const hits = layer.layer.containing(lng, lat);
    const voting = hits.filter((h) => !h.key.endsWith('ZZ'));
    if (voting[0]) return this.match(layer, voting[0], 'polygon', useCoarse);
    if (hits.length) return { key: null, reason: 'water area not assigned to any congressional district (ZZ)' };
    if (useCoarse && !this.cdCoarse.layer.keyPrefixes(2).has(st))
      return { key: null, reason: `no congressional district boundaries for state ${st} (territories without a voting district)` };
    return { key: null, reason: 'no district polygon contains the point (coastline differences between county and district sources)' };
  }

  private locateTract(lat: number, lng: number, st: string | undefined): LevelAnswer {
    if (!st) return { key: null, reason: 'not inside any state' };
    if (!this.tractStates.has(st))
      return {
        key: null,
        reason: `no tract boundaries for state ${st}: the 2010-definition tract source covers ${this.tractStates.size} states/territories (missing AK, CA, FL, GA, NY, NC, PA, TX, VA, PR, MP); see tract_2020 for an approximate 2020 tract`,
      };
    const hit = this.tract.layer.containing(lng, lat)[0];
    return hit
      ? this.match(this.tract, hit, 'polygon', false)
      : { key: null, reason: 'no 2010 tract polygon contains the point (water or coastline)' };
  }
}
