// The plan and price wording the transports show is written from the plan and cost tables: it says
// what the gates and prices enforce, and follows them when they change.
import { describe, expect, it } from 'vitest';
import { costOf, EXPANSION_PER_UNIT } from '../../src/domain/cost.js';
import { hasFeature, PLAN_IDS, PLANS } from '../../src/domain/plans.js';
import { boundaryCostTerms, csvTerms, dataCostTerms, levelsByPlan, plansWith, wildcardTerms } from '../../src/verbs/describe-plans.js';

describe('describe-plans', () => {
  it('names the cheapest plan with CSV and its row cap, as the CSV gate enforces them', () => {
    const first = PLAN_IDS.map((id) => PLANS[id]).find((p) => hasFeature(p, { kind: 'csv' }))!;
    expect(plansWith({ kind: 'csv' })).toBe(`${first.name} and above`);
    expect(csvTerms()).toContain(`more than ${first.limits.csvRowCap.toLocaleString('en-US')} rows`);
    expect(csvTerms()).toBe(
      'CSV export (format=csv) is for Pro and above; more than 10,000 rows is refused with 413 payload-too-large (never silently truncated)',
    );
  });

  it('lists boundary levels by what each plan adds, every level and resolution of the table named once', () => {
    const text = levelsByPlan('boundaries');
    expect(text).toBe(
      'Free nation and state; Pioneer adds county, metro, cd; Pro adds tract; Business adds block_group and 5m; Enterprise adds 500k',
    );
    for (const level of PLANS.enterprise.features.boundaryLevels) expect(text).toMatch(new RegExp(`\\b${level}\\b`));
    for (const res of PLANS.enterprise.features.resolutions.filter((r) => r !== '20m')) expect(text).toContain(res);
  });

  it('states wildcard plans and prices from the gates and the cost table', () => {
    expect(wildcardTerms()).toBe('county/metro/cd/tract wildcards need the Pro plan, block_group wildcards the Business plan');
    expect(dataCostTerms()).toContain(`1 per ${EXPANSION_PER_UNIT} geographies`);
    // 1 geography × 1 variable costs 1; each extra variable 1 more, as the text says.
    expect(costOf('pro', { kind: 'data', variables: 3, geos: [{ kind: 'single' }] })).toBe(3);
    expect(boundaryCostTerms()).toBe(`Costs ${costOf('free', { kind: 'boundaries', level: 'state' })} units`);
  });
});
