// How a resolved `geo` is priced (domain/cost.ts): a key is one geography, a wildcard or a name
// that expanded is priced by its count.
import type { GeoTerm } from '../../domain/cost.js';
import type { ResolvedGeographies } from '../resolve-geographies.js';

export function geoTermsOf(geo: Pick<ResolvedGeographies, 'expansions'>): GeoTerm[] {
  return geo.expansions.map((e) =>
    e.via === 'key' || (e.count === 1 && e.via !== 'wildcard') ? { kind: 'single' } : { kind: 'expansion', count: e.count },
  );
}
