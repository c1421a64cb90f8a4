// Lookup maps over the crosswalks of geo/geographies.json, built once at load.
import type { GeoCrosswalks } from './format.js';

export interface TractShare {
  tract: string;
  /** Share of the tract's 2020 population inside the district (1 for unsplit tracts). */
  afact: number;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

export class Crosswalks {
  readonly metroCounties = new Map<string, string[]>();
  readonly countyMetro = new Map<string, string>();
  readonly centralCounties = new Set<string>();
  /** District ↔ tract maps, built on first use (below). */
  private cd: { cdTracts: Map<string, TractShare[]>; tractCds: Map<string, string[]> } | undefined;
  /** District → block groups of its split tracts that lie in it. */
  readonly cdSplitBgs = new Map<string, string[]>();
  readonly ctRegionOf = new Map<string, string>();
  readonly ct2022Of = new Map<string, string>();
  readonly ct2020Of = new Map<string, string>();
  readonly ctRegionTracts = new Map<string, string[]>();

  private readonly cdTract: GeoCrosswalks['cd_tract'];

  constructor(x: GeoCrosswalks) {
    x.metro_county.cbsa.forEach((m, i) => {
      const c = x.metro_county.county[i]!;
      push(this.metroCounties, m, c);
      this.countyMetro.set(c, m);
      if (x.metro_county.central[i]) this.centralCounties.add(c);
    });
    this.cdTract = x.cd_tract;
    x.cd_bg_split.bg.forEach((bg, i) => push(this.cdSplitBgs, x.cd_bg_split.cd[i]!, bg));
    x.ct_tract.tract2020.forEach((t, i) => {
      const r = x.ct_tract.region[i]!;
      const t22 = x.ct_tract.tract2022[i]!;
      this.ctRegionOf.set(t, r);
      this.ct2022Of.set(t, t22);
      this.ct2020Of.set(t22, t);
      push(this.ctRegionTracts, r, t);
    });
  }

  /**
   * The district-to-tract crosswalk's two maps, built on first use: ~87,000 rows, a noticeable part
   * of every start (target 3 s) for the district requests only.
   */
  private cdMaps(): NonNullable<Crosswalks['cd']> {
    if (!this.cd) {
      const x = this.cdTract;
      const cdTracts = new Map<string, TractShare[]>();
      const tractCds = new Map<string, string[]>();
      x.tract.forEach((t, i) => {
        const cd = x.cd[i]!;
        push(cdTracts, cd, { tract: t, afact: x.afact[i]! });
        push(tractCds, t, cd);
      });
      this.cd = { cdTracts, tractCds };
    }
    return this.cd;
  }

  get cdTracts(): Map<string, TractShare[]> {
    return this.cdMaps().cdTracts;
  }

  get tractCds(): Map<string, string[]> {
    return this.cdMaps().tractCds;
  }

  isSplit(tract2020: string): boolean {
    return (this.tractCds.get(tract2020)?.length ?? 0) > 1;
  }
}
