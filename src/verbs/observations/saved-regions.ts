// The caller's saved regions, read when a request names one (`geo=region:<name>`).
import type { VerbContext } from '../../context/verb-context.js';
import type { SavedRegionLookup } from './regions.js';

export function savedRegionsOf(_ctx: VerbContext): SavedRegionLookup | undefined {
  return undefined;
}
