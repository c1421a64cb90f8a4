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
  readonly cdTracts = new Map<string, TractShare[]>();
  readonly tractCds = new Map<string, string[]>();
  /** District → block groups of its split tracts that lie in it. */
  readonly cdSplitBgs = new Map<string, string[]>();
  readonly ctRegionOf = new Map<string, string>();
  readonly ct2022Of = new Map<string, string>();
  readonly ct2020Of = new Map<string, string>();
  readonly ctRegionTracts = new Map<string, string[]>();

  constructor(x: GeoCrosswalks) {
    x.metro_county.cbsa.forEach((m, i) => {
      const c = x.metro_county.county[i]!;
      push(this.metroCounties, m, c);
      this.countyMetro.set(c, m);
      if (x.metro_county.central[i]) this.centralCounties.add(c);
    });
    x.cd_tract.tract.forEach((t, i) => {
      const cd = x.cd_tract.cd[i]!;
      push(this.cdTracts, cd, { tract: t, afact: x.cd_tract.afact[i]! });
      push(this.tractCds, t, cd);
    });
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

  isSplit(tract2020: string): boolean {
    return (this.tractCds.get(tract2020)?.length ?? 0) > 1;
  }
}
