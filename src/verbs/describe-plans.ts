// The plan and price wording every transport shows (route and tool descriptions, the OpenAPI
// document), written from the plan table (src/domain/plans.ts) and the cost table
// (src/domain/cost.ts), so a change of plan or price is one edit there and the docs follow.
import { costOf, EXPANSION_PER_UNIT, type RequestShape } from '../domain/cost.js';
import { isPurchasable, PLAN_IDS, PLANS, requiredPlanFor, SIGN_UP_PLAN, type Feature } from '../domain/plans.js';

const count = (n: number) => n.toLocaleString('en-US');

/** The cheapest plan with a feature, as "Pro and above". */
export function plansWith(f: Feature): string {
  const plan = requiredPlanFor(f);
  return plan.id === PLAN_IDS[PLAN_IDS.length - 1] ? plan.name : `${plan.name} and above`;
}

/** "First sign-in creates a Free account." */
export function signUpTerms(): string {
  return `First sign-in creates a ${PLANS[SIGN_UP_PLAN].name} account.`;
}

/** The CSV export's row cap on the cheapest plan that has CSV. */
export function csvRowCapText(): string {
  return count(requiredPlanFor({ kind: 'csv' }).limits.csvRowCap);
}

/** `format=csv`: who has it and its cap. */
export function csvTerms(): string {
  return `CSV export (format=csv) is for ${plansWith({ kind: 'csv' })}; more than ${csvRowCapText()} rows is refused with 413 payload-too-large (never silently truncated)`;
}

/** "Free nation and state; Pioneer adds county, metro, cd; …": what each plan adds to the one before. */
export function levelsByPlan(kind: 'boundaries' | 'centroids'): string {
  const parts: string[] = [];
  let levels: readonly string[] = [];
  let resolutions: readonly string[] | undefined;
  for (const id of PLAN_IDS) {
    const f = PLANS[id].features;
    const own = kind === 'boundaries' ? f.boundaryLevels : f.centroidLevels;
    const newLevels = own.filter((l) => !levels.includes(l));
    const newRes = kind === 'boundaries' && resolutions ? f.resolutions.filter((r) => !resolutions!.includes(r)) : [];
    const added = [newLevels.join(', '), ...newRes].filter((s) => s !== '');
    if (added.length > 0) {
      const what = added.join(' and ');
      parts.push(parts.length === 0 ? `${PLANS[id].name} ${what.replace(/, ([^,]*)$/, ' and $1')}` : `${PLANS[id].name} adds ${what}`);
    }
    levels = own;
    resolutions = f.resolutions;
  }
  return parts.join('; ');
}

/** Which plan each kind of wildcard needs. */
export function wildcardTerms(): string {
  const tract = requiredPlanFor({ kind: 'wildcard', level: 'tract' }).name;
  const bg = requiredPlanFor({ kind: 'wildcard', level: 'block_group' }).name;
  return `county/metro/cd/tract wildcards need the ${tract} plan, block_group wildcards the ${bg} plan`;
}

/** include_geometry's plan. */
export function geometryTerms(): string {
  return `${plansWith({ kind: 'include_geometry' })}`;
}

/** What a data request costs (src/domain/cost.ts). */
export function dataCostTerms(): string {
  return `1 per geography (a wildcard: 1 per ${EXPANSION_PER_UNIT} geographies it expands to) plus 1 per extra variable`;
}

const units = (n: number) => `${n} quota ${n === 1 ? 'unit' : 'units'}`;

/** What a request of `shape` costs on the first plan, in words: "1 quota unit". */
export function costTerms(shape: RequestShape): string {
  return units(costOf(PLANS[PLAN_IDS[0]], shape));
}

/** What a lookup (catalog, geography search, geocode, datasets) costs: "1 quota unit." */
export function lookupCostTerms(): string {
  return `${costTerms({ kind: 'lookup' })}.`;
}

/** The plans a checkout can buy, in the plan table's order: "pioneer, pro, business". */
export function purchasablePlanIds(): string {
  return PLAN_IDS.filter((id) => isPurchasable(PLANS[id])).join(', ');
}

/** What a boundary or centroid download costs a plan that has access to it. */
export function boundaryCostTerms(): string {
  return `Costs ${costOf(PLANS[PLAN_IDS[0]], { kind: 'boundaries', level: 'nation' })} units`;
}
