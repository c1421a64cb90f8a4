// The caller's saved regions, read when a request names one (`geo=region:<name>`): the accounts
// store, scoped to the caller's account, so another account's region reads as absent (404).
import { storeOf } from '../../context/stores.js';
import type { VerbContext } from '../../context/verb-context.js';
import type { SavedRegionLookup } from './resolve-regions.js';

export function savedRegionsOf(ctx: VerbContext): SavedRegionLookup | undefined {
  const caller = ctx.caller;
  if (!caller) return undefined;
  return async (name) => {
    // A request naming a saved region needs the accounts store (503 when it is not open).
    const row = await storeOf(ctx.stores, 'accounts').getRegion(caller.accountId, name);
    return row ? { name: row.name, members: row.members } : null;
  };
}
