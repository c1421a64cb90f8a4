// GET /v1/geographies/{geo_key}/children?type=… — child geographies of a parent. The parent may
// be a key or, as in data requests, a place name ("Travis County, TX", "TX-35").
import { z } from 'zod';
import { pageSizeFor } from '../domain/plans.js';
import { AppError } from '../domain/errors.js';
import { CHILD_TYPES, GEO_TYPES, splitKey } from '../domain/geo/keys.js';
import { resolvePlaceName, type FormerName } from '../store/geographies/resolve-name.js';
import { LATEST_VINTAGE, pastEnd, vintageField, viewOf, type GeographyView } from './geo-support.js';
import type { GeographyRecord, GeographyStore } from '../store/geographies.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';
import { pageShape } from './paging.js';
import { childGeographySchema } from './geography-schemas.js';

export const geographyChildrenInput = z.object({
  geo_key: z.string().trim().min(1).max(300).describe('Parent key (`metro:12420`) or name.'),
  type: z.enum(GEO_TYPES).describe('Child type (the types each parent type has are listed with the operation).'),
  vintage: vintageField,
  ...pageShape,
});
export type GeographyChildrenInput = z.input<typeof geographyChildrenInput>;

/**
 * A parent given as a key (`county:48453`) or a name (`Travis County, TX`, `county:Travis County,
 * TX`, `TX-35`, `Austin-Round Rock-San Marcos, TX`), as it exists in `vintage`.
 */
export function resolveParent(store: GeographyStore, parent: string, vintage: number): GeographyRecord {
  return resolveParentNote(store, parent, vintage).record;
}

/**
 * As resolveParent, with the note a name brings: set when the name is another vintage's name of
 * the place ("Austin-Round Rock, TX", the ACS 2017 title of metro:12420). A type in front of the
 * name (`metro:Austin-Round Rock`) is the reading preferred when the name has several.
 */
export function resolveParentNote(
  store: GeographyStore,
  parent: string,
  vintage: number,
): { record: GeographyRecord; note?: string; former?: FormerName } {
  const k = splitKey(parent.trim());
  if (k) {
    const r = store.get(parent.trim(), vintage);
    if (!r) {
      const other = store.versions(parent.trim());
      throw new AppError(
        'geography-not-found',
        other.length
          ? `${parent} (${other[0]!.name}) exists in ACS ${other.map((o) => `${o.valid_from}–${o.valid_to ?? 'present'}`).join(', ')}, not in ${vintage}.`
          : `${parent} matches no geography. FIPS codes keep their leading zeros (state:06, not state:6).`,
      );
    }
    return { record: r };
  }
  const colon = parent.indexOf(':');
  const typed = colon >= 0 && /^[a-z_]+$/i.test(parent.slice(0, colon).trim());
  const name = typed ? parent.slice(colon + 1) : parent;
  const specType = typed ? parent.slice(0, colon).trim().toLowerCase() : undefined;
  const { target, note, former } = resolvePlaceName(store, name.trim(), vintage, specType);
  const key = `${target.type}:${target.fips}`;
  const r = store.get(key, vintage) ?? store.get(key);
  if (!r) throw new AppError('geography-not-found', `"${parent}" resolved to ${key}, which has no definition in ACS ${vintage}.`);
  return note ? { record: r, note, former } : { record: r };
}

/**
 * The meta a parent asked for by a former name brings: the sentence (`name_note`, also first in
 * `notes`) and the same as fields (`former_name`), from which pages word it with names.
 */
export function formerNameMeta(p: { note?: string; former?: FormerName }): { name_note: string | null; former_name: FormerName | null } {
  return { name_note: p.note ?? null, former_name: p.former ?? null };
}

export const geographyChildren = defineVerb({
  name: 'geography-children',
  input: geographyChildrenInput,
  output: z.array(childGeographySchema),
  cost: { kind: 'lookup' },
  run: async ({ ctx, input, plan }): Promise<VerbResult<GeographyView[]>> => {
    const q = { ...input, offset: input.offset ?? 0 };
    const store = storeOf(ctx.stores, 'geographies');
    const vintage = q.vintage ?? LATEST_VINTAGE;
    // Page size from the caller's plan: a limit above its maximum is reduced to it, not refused.
    const limit = pageSizeFor(plan, q.limit);
    const resolved = resolveParentNote(store, q.geo_key, vintage);
    const { record: parent, note } = resolved;
    const allowed = CHILD_TYPES[parent.type];
    if (!allowed.includes(q.type)) {
      throw new AppError(
        'unsupported-child-type',
        `${parent.type} geographies have no ${q.type} children; allowed child types for ${parent.type}: ${allowed.join(', ') || 'none'}.`,
        {
          extensions: { parent_type: parent.type, allowed_child_types: allowed },
        },
      );
    }
    const m = store.members(parent.key, q.type, vintage);
    if (m.unsupported) throw new AppError('validation-error', m.unsupported);
    const page = m.keys
      .slice(q.offset, q.offset + limit)
      .map((k) => store.get(k, vintage))
      .filter((r): r is GeographyRecord => r !== null);
    const data = page.map((r) => {
      const v = viewOf(r);
      const share = m.afact?.get(r.key);
      return share === undefined ? v : { ...v, afact: share };
    });
    return {
      data,
      meta: {
        total_count: m.keys.length,
        vintage,
        parent: viewOf(parent),
        notes: note ? [note, ...m.notes] : m.notes,
        // Set when the parent was named by a name it had in another vintage (a former metro
        // title): pages that asked by that name say what they found, in names (former_name).
        ...formerNameMeta(resolved),
        hint:
          m.keys.length === 0
            ? `${parent.name} has no ${q.type} in ACS ${vintage}.`
            : q.offset >= m.keys.length
              ? pastEnd(q.offset, m.keys.length)
              : null,
      },
      page: { offset: q.offset, limit, total: m.keys.length },
    };
  },
});
