// Medians of a region, estimated from the distribution the Bureau tabulates beside each median
// (domain/regions/median.ts), summed over the members first. A median without a known
// distribution is not summed: regions.ts answers it null with `not_additive`.
import type { Cell } from '../../domain/formula.js';
import { interpolateMedian, MEDIAN_DISTRIBUTIONS } from '../../domain/regions/median.js';

export const medianFromDistribution = {
  /** The codes of the distribution a median code is estimated from in a vintage; none when none is known. */
  codesFor(code: string, vintage: number): readonly string[] {
    return (
      MEDIAN_DISTRIBUTIONS.get(code)
        ?.intervalsIn(vintage)
        .flatMap((i) => i.codes) ?? []
    );
  },
  /** The median from the region's summed distribution (cells in the order of codesFor). */
  estimate(code: string, vintage: number, parts: readonly Cell[]): Cell {
    const intervals = MEDIAN_DISTRIBUTIONS.get(code)!.intervalsIn(vintage);
    const failed = parts.find((p) => p.estimate === null);
    if (failed)
      return { estimate: null, moe: null, estimate_annotation: 'derived_from_annotated', moe_annotation: 'derived_from_annotated' };
    // An interval's count is the sum of its codes' (ages are tabulated by sex).
    let next = 0;
    const counts = intervals.map((i) => i.codes.reduce((s) => s + parts[next++]!.estimate!, 0));
    const r = interpolateMedian(intervals, counts);
    if (r.estimate === null) {
      const why = r.why === 'open_ended' ? 'median_open_interval' : 'not_computable';
      return { estimate: null, moe: null, estimate_annotation: why, moe_annotation: why };
    }
    return { estimate: r.estimate, moe: null, estimate_annotation: null, moe_annotation: 'moe_design_factor_unavailable' };
  },
};
