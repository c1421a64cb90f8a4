// GET /v1/geographies — browse geographies by type, by parent, or by name search; paginated.
// The page size follows the caller's plan (a larger limit is reduced to the plan's maximum).
import { z } from 'zod';
import { pageSizeFor } from '../domain/plans.js';
import { AppError } from '../domain/errors.js';
import { CHILD_TYPES, GEO_TYPES } from '../domain/geo/keys.js';
import { LATEST_VINTAGE, pastEnd, viewOf, type GeographyView } from './geo-support.js';
import type { GeographyRecord } from '../store/geographies.js';
import type { VerbResult } from '../context/verb-context.js';
import { formerNameMeta, resolveParent, resolveParentNote } from './geography-children.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';
import { pageShape } from './paging.js';
import { geographySchema } from './geography-schemas.js';
import { vintageField } from './geo-support.js';

export const geographiesListInput = z.object({
  type: z
    .enum(GEO_TYPES)
    .optional()
    .describe(
      "Only this geography type. With parent (and no search): list the parent's children of this type, e.g. type tract with parent county:48453.",
    ),
  parent: z
    .string()
    .max(300)
    .optional()
    .describe('A containing geography key (county:48453) or name ("Travis County, TX"), to list its children or restrict a search.'),
  search: z
    .string()
    .max(200)
    .optional()
    .describe(
      'Name to look for among states, counties, metros and congressional districts, e.g. "Travis", "Austin", "Texas 35". Not for tracts or block groups (list those by parent).',
    ),
  vintage: vintageField,
  ...pageShape,
});
export type GeographiesListInput = z.input<typeof geographiesListInput>;

/** A listed geography with the address of its profile page (served next to the dashboard). */
export const listedGeographySchema = geographySchema.extend({
  links: z
    .object({ profile: z.string().describe("The place's profile page: every topic with MOE, beside its parents (docs/profile.md).") })
    .describe('Pages about this geography.'),
});
type ListedGeography = GeographyView & { links: { profile: string } };

/** The profile page's address: the pages are served by the same deployment as the dashboard. */
export function profileUrl(dashboardUrl: string, key: string): string {
  return new URL(`/profile/${key}`, dashboardUrl).href;
}

export const geographiesList = defineVerb({
  name: 'geographies-list',
  input: geographiesListInput,
  output: z.array(listedGeographySchema),
  cost: { kind: 'lookup' },
  run: async ({ ctx, input, plan }): Promise<VerbResult<ListedGeography[]>> => {
    const linked = (r: VerbResult<GeographyView[]>): VerbResult<ListedGeography[]> => ({
      ...r,
      data: r.data.map((g) => ({ ...g, links: { profile: profileUrl(ctx.config.DASHBOARD_URL, g.geo_key) } })),
    });
    // Blank text is no filter (as an empty query parameter is).
    const q = { ...input, search: input.search?.trim() || undefined, parent: input.parent?.trim() || undefined, offset: input.offset ?? 0 };
    const store = storeOf(ctx.stores, 'geographies');
    const vintage = q.vintage ?? LATEST_VINTAGE;
    // Page size from the caller's plan: a limit above its maximum is reduced to it, not refused.
    const limit = pageSizeFor(plan, q.limit);
    let rows: GeographyRecord[];
    let hint: string | null = null;
    if (q.search) {
      if (q.type === 'tract' || q.type === 'block_group') {
        throw new AppError(
          'validation-error',
          `Name search covers states, counties, metros and districts; tract and block group names are generated. List them by parent instead (parent=county:48453 or parent="Travis County, TX").`,
        );
      }
      const found = store.search(q.search, { type: q.type, limit: 1000, vintage });
      rows = found.matches;
      if (q.parent) {
        const parent = resolveParent(store, q.parent, vintage);
        rows = rows.filter((r) => r.state_keys.includes(parent.key) || r.parent_key === parent.key);
      }
      if (rows.length === 0) {
        const near = found.closest.map((r) => `${r.name} (${r.key})`).join('; ');
        hint = `No geography name contains "${q.search}". Try fewer words or a state abbreviation.${near ? ` Closest names: ${near}.` : ''}`;
      }
    } else if (q.parent) {
      if (!q.type) {
        throw new AppError('unprocessable-request', 'type is required with parent: say which child type to list.', {
          errors: [{ field: 'type', message: 'Field required with parent', type: 'missing' }],
        });
      }
      const resolved = resolveParentNote(store, q.parent, vintage);
      const parent = resolved.record;
      if (!CHILD_TYPES[parent.type].includes(q.type)) {
        throw new AppError(
          'unsupported-child-type',
          `${parent.type} geographies have no ${q.type} children; allowed child types: ${CHILD_TYPES[parent.type].join(', ') || 'none'}.`,
        );
      }
      const m = store.members(parent.key, q.type, vintage);
      if (m.unsupported) throw new AppError('validation-error', m.unsupported);
      const page = paged(
        m.keys.length,
        q.offset,
        limit,
        () =>
          m.keys
            .slice(q.offset, q.offset + limit)
            .map((k) => store.get(k, vintage))
            .filter((r): r is GeographyRecord => r !== null),
        vintage,
      );
      // A parent named by a former name says so, as the children operation does (MCP's search_geographies).
      if (resolved.note) page.meta = { ...page.meta, notes: [resolved.note], ...formerNameMeta(resolved) };
      return linked(page);
    } else {
      if (!q.type) {
        throw new AppError('unprocessable-request', 'Give a type, a parent or a search term.', {
          errors: [{ field: 'type', message: 'One of type, parent or search is required', type: 'missing' }],
        });
      }
      const type = q.type;
      const table = store.tables[type];
      const total = store.countByPrefix(type, '', vintage);
      // Rows valid in the vintage are a filtered view of the table: walk it once to the page.
      return linked(
        paged(
          total,
          q.offset,
          limit,
          () => {
            const out: GeographyRecord[] = [];
            let seen = 0;
            for (let i = 0; i < table.size && out.length < limit; i++) {
              if (!table.validAt(i, vintage)) continue;
              if (seen++ >= q.offset) out.push(store.record(type, i));
            }
            return out;
          },
          vintage,
        ),
      );
    }
    const page = rows.slice(q.offset, q.offset + limit);
    if (page.length === 0 && rows.length > 0) hint = pastEnd(q.offset, rows.length);
    return linked({
      data: page.map(viewOf),
      meta: { total_count: rows.length, vintage, hint },
      page: { offset: q.offset, limit, total: rows.length },
    });
  },
});

function paged(total: number, offset: number, limit: number, fetch: () => GeographyRecord[], vintage: number): VerbResult<GeographyView[]> {
  const data = offset >= total ? [] : fetch().map(viewOf);
  const hint = total === 0 ? 'No geographies of this type in this vintage.' : offset >= total ? pastEnd(offset, total) : null;
  return { data, meta: { total_count: total, vintage, hint }, page: { offset, limit, total } };
}
