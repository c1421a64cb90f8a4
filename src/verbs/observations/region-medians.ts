// Medians of a region, estimated from the distribution the Bureau tabulates beside each median.
// No distribution is registered yet: a median of a region is null with `not_additive`.
import type { Cell } from '../../domain/formula.js';

export const medianFromDistribution = {
  /** The codes of the distribution a median code is estimated from; none when none is known. */
  codesFor(_code: string, _tableTitle: string | null): string[] {
    return [];
  },
  estimate(_code: string, _parts: Cell[]): Cell {
    return { estimate: null, moe: null, estimate_annotation: 'not_additive', moe_annotation: 'not_additive' };
  },
};
