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
const NOT_BUILT = (what: string) => `no ${what} boundaries in this build (its source was not downloaded or given)`;

interface Layer<T> {
  layer: T;
  entry: { boundary_vintage: string; source: string; definition_vintage?: string; true_resolution?: string };
}

type Maybe<T> = Layer<T> | undefined;

/** Finest served resolution first; the geocoder never reads derived simplifications when a true file exists. */
const FINEST = ['500k', '5m', '20m'];
function finest(files: BoundaryFileEntry[]): BoundaryFileEntry | undefined {
  return [...files].sort(
    (a, b) => Number(a.derived) - Number(b.derived) || FINEST.indexOf(a.resolution ?? '') - FINEST.indexOf(b.resolution ?? ''),
  )[0];
}

export class PointGeocoder {
  private constructor(
    private readonly state: Maybe<PolygonLayer>,
    private readonly nation: Maybe<PolygonLayer>,
    private readonly county: Maybe<PolygonLayer>,
    private readonly county2017: Maybe<PolygonLayer>,
    private readonly metro: Maybe<PolygonLayer>,
    private readonly cd: Maybe<PolygonLayer>,
    private readonly cdCoarse: Maybe<PolygonLayer>,
    private readonly tract: Maybe<PolygonLayer>,
    /** 2020-definition tracts and block groups (the Bureau's cartographic files, when downloaded). */
    private readonly tract2020: Maybe<PolygonLayer>,
    private readonly bg2020: Maybe<PolygonLayer>,
    private readonly tractCenters: Maybe<PointLayer>,
    private readonly bgCenters: Maybe<PointLayer>,
  ) {
    this.cdStates = cd?.layer.keyPrefixes(2) ?? new Set();
    this.tractStates = tract?.layer.keyPrefixes(2) ?? new Set();
    this.tract2020States = tract2020?.layer.keyPrefixes(2) ?? new Set();
    this.bg2020States = bg2020?.layer.keyPrefixes(2) ?? new Set();
  }

  private readonly cdStates: Set<string>;
  private readonly tractStates: Set<string>;
  private readonly tract2020States: Set<string>;
  private readonly bg2020States: Set<string>;

  /**
   * Loads the finest file per level (the geocoder never uses derived simplifications). Every layer
   * is optional: a build holds the levels its sources had, and a level without a file answers
   * with the reason.
   */
  static async load(store: BoundaryFiles): Promise<PointGeocoder> {
    const files = store.index.files;
    const poly = async (e: BoundaryFileEntry | undefined): Promise<Maybe<PolygonLayer>> =>
      e ? { layer: new PolygonLayer(await store.file(e.path)), entry: e } : undefined;
    const pts = async (level: 'tract' | 'block_group'): Promise<Maybe<PointLayer>> => {
      const c = store.centroidEntry(level);
      if (!c || c.kind !== 'population_center') return undefined;
      return {
        layer: new PointLayer(await store.file(c.path)),
        entry: { boundary_vintage: c.vintage, source: c.source, definition_vintage: c.vintage },
      };
    };
    const served = (level: string, pred: (f: BoundaryFileEntry) => boolean = () => true) =>
      finest(files.filter((f) => f.level === level && f.served && pred(f)));
    const defined = (level: string, d: string) =>
      finest(files.filter((f) => f.level === level && f.resolution === '500k' && f.definition_vintage === d));
    const layers = await Promise.all([
      poly(served('state', (f) => f.default)),
      poly(served('nation', (f) => f.default)),
      poly(served('county', (f) => f.default)),
      poly(files.find((f) => f.level === 'county' && f.edition === '2017')),
      poly(served('metro', (f) => f.default)),
      poly(files.find((f) => f.level === 'cd' && f.resolution === '500k')),
      poly(files.find((f) => f.level === 'cd' && !f.served)),
      poly(defined('tract', '2010')),
      poly(defined('tract', '2020')),
      poly(defined('block_group', '2020')),
    ]);
    const [tractCenters, bgCenters] = await Promise.all([pts('tract'), pts('block_group')]);
    return new PointGeocoder(...layers, tractCenters, bgCenters);
  }

  /** Decode every polygon now (for benchmarks and warm starts). */
  warm(): void {
    for (const l of [
      this.state,
      this.nation,
      this.county,
      this.county2017,
      this.metro,
      this.cd,
      this.cdCoarse,
      this.tract,
      this.tract2020,
      this.bg2020,
    ])
      l?.layer.decodeAll();
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
    const county = this.county?.layer.containing(lng, lat)[0];
    const stateHit = this.state?.layer.containing(lng, lat)[0];
    const out = {} as GeocodeGeographies;
    out.county =
      county && this.county
        ? this.match(this.county, county, 'polygon', false)
        : {
            key: null,
            reason: !this.county
              ? NOT_BUILT('county')
              : stateHit
                ? 'inside a state outline but outside every county shape (coastline differences between sources)'
                : 'not inside any county: at sea or outside the United States',
          };

    // County shapes are at least as fine as the state file, so the county decides the state.
    const stFips = county ? county.key.slice(7, 9) : stateHit?.key.slice(6);
    if (county) {
      const idx = this.state?.layer.file.indexOf(`state:${stFips}`);
      out.state =
        idx === undefined || !this.state
          ? {
              key: `state:${stFips}`,
              name: '',
              method: 'from_county',
              boundary_vintage: this.county!.entry.boundary_vintage,
              source: 'county GEOID prefix (no state shape for this territory)',
              approximate: false,
            }
          : {
              ...this.match(this.state, { key: `state:${stFips}`, index: idx }, 'from_county', false),
              boundary_vintage: this.county!.entry.boundary_vintage,
            };
    } else {
      out.state =
        stateHit && this.state
          ? this.match(this.state, stateHit, 'polygon', true)
          : { key: null, reason: this.state ? 'not inside any state: at sea or outside the United States' : NOT_BUILT('state') };
    }
    const nationHit = stFips ? null : this.nation?.layer.containing(lng, lat)[0];
    out.nation = stFips
      ? {
          key: 'nation:1',
          name: 'United States',
          method: 'from_state',
          boundary_vintage: out.state.key ? (out.state as LevelMatch).boundary_vintage : '',
          source: 'containing state',
          approximate: false,
        }
      : nationHit && this.nation
        ? this.match(this.nation, nationHit, 'polygon', true)
        : { key: null, reason: 'outside the United States land area (at sea or abroad)' };

    const metro = this.metro?.layer.containing(lng, lat)[0];
    out.metro =
      metro && this.metro
        ? this.match(this.metro, metro, 'polygon', false)
        : {
            key: null,
            reason: !this.metro
              ? NOT_BUILT('metro')
              : county
                ? 'the county is not part of any metropolitan or micropolitan statistical area'
                : 'no containing county',
          };

    out.cd = this.locateCd(lat, lng, stFips);
    out.tract = this.locateTract(lat, lng, stFips);

    // 2020 tracts and block groups: the Bureau's cartographic polygons where the build has them
    // for the state; otherwise the nearest 2020 population center in the containing county (CT:
    // legacy county, as the 2020 codes use it), always approximate.
    const countyFor2020 = stFips === '09' ? (this.county2017?.layer.containing(lng, lat)[0] ?? county) : county;
    const t20poly = stFips && this.tract2020States.has(stFips) ? this.tract2020 : undefined;
    const t20hit = t20poly?.layer.containing(lng, lat)[0];
    const t20near =
      !t20poly && countyFor2020 && this.tractCenters ? this.tractCenters.layer.nearest(lng, lat, countyFor2020.key.slice(7)) : null;
    out.tract_2020 =
      t20poly && t20hit
        ? this.match(t20poly, t20hit, 'polygon', false)
        : t20near && this.tractCenters
          ? this.match(this.tractCenters, t20near, 'nearest_population_center', true)
          : {
              key: null,
              reason: t20poly
                ? 'no 2020 tract polygon contains the point (water or coastline)'
                : county
                  ? 'no 2020 tract boundaries or population centers for the containing county in this build'
                  : 'no containing county',
            };
    const t20key = t20hit?.key ?? t20near?.key;
    const bgPoly = stFips && this.bg2020States.has(stFips) ? this.bg2020 : undefined;
    const bgHit = bgPoly?.layer.containing(lng, lat)[0];
    const bgNear = !bgPoly && t20key && this.bgCenters ? this.bgCenters.layer.nearest(lng, lat, t20key.slice(6)) : null;
    out.block_group =
      bgPoly && bgHit
        ? this.match(bgPoly, bgHit, 'polygon', false)
        : bgNear && this.bgCenters
          ? this.match(this.bgCenters, bgNear, 'nearest_population_center', true)
          : {
              key: null,
              reason: bgPoly
                ? 'no block-group polygon contains the point (water or coastline)'
                : 'no block-group boundaries for this state in the build and no 2020 tract was found for a nearest-center estimate',
            };
    return out;
  }

  private locateCd(lat: number, lng: number, st: string | undefined): LevelAnswer {
    if (!st) return { key: null, reason: 'not inside any state' };
    if (!this.cd) return { key: null, reason: NOT_BUILT('congressional district') };
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
    const useCoarse = !this.cdStates.has(st) && this.cdCoarse !== undefined;
    const layer = useCoarse ? this.cdCoarse! : this.cd;
    const hits = layer.layer.containing(lng, lat);
    const voting = hits.filter((h) => !h.key.endsWith('ZZ'));
    if (voting[0]) return this.match(layer, voting[0], 'polygon', useCoarse);
    if (hits.length) return { key: null, reason: 'water area not assigned to any congressional district (ZZ)' };
    if (!this.cdStates.has(st) && !this.cdCoarse?.layer.keyPrefixes(2).has(st))
      return { key: null, reason: `no congressional district boundaries for state ${st} (territories without a voting district)` };
    return { key: null, reason: 'no district polygon contains the point (coastline differences between county and district sources)' };
  }

  private locateTract(lat: number, lng: number, st: string | undefined): LevelAnswer {
    if (!st) return { key: null, reason: 'not inside any state' };
    if (!this.tract) return { key: null, reason: 'no 2010-definition tract boundaries in this build; see tract_2020' };
    if (!this.tractStates.has(st))
      return {
        key: null,
        reason: `no tract boundaries for state ${st}: the 2010-definition tract source covers ${this.tractStates.size} states/territories${
          // The shared tree's conversion (cb_2018, 45 files) lacks these; a downloaded source names its own states.
          this.tract.entry.source.startsWith('Census cartographic cb_2018') ? ' (missing AK, CA, FL, GA, NY, NC, PA, TX, VA, PR, MP)' : ''
        }; see tract_2020 for a 2020 tract`,
      };
    const hit = this.tract.layer.containing(lng, lat)[0];
    return hit
      ? this.match(this.tract, hit, 'polygon', false)
      : { key: null, reason: 'no 2010 tract polygon contains the point (water or coastline)' };
  }
}
