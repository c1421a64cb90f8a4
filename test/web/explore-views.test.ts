// The explorer's remaining views in headless Chromium against the real server and the test
// build's data: a geography whose definition changes inside a series (marked on the chart, in its
// text alternative, in a list and in the table), the map's parent area typed in words and
// resolved by the API (ambiguity answered by keyboard), a raw census code shown with a human
// label, the poverty-rate significance question end to end, and axe-core (every impact) on each
// of these views and on the key, empty and no-values states.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { allViolations, launchBrowser, screenshot } from '../support/browser.js';
import { startLiveService, type LiveService } from '../support/live-service.js';

let svc: LiveService;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const consoleErrors: string[] = [];

async function api<T>(p: string): Promise<T> {
  const r = await fetch(`${svc.base}${p}`, { headers: { 'X-API-Key': svc.keys.business } });
  expect(r.status, p).toBe(200);
  return (await r.json()) as T;
}

async function openWithKey(query: string) {
  await page.goto(`${svc.base}/explore?${query}`);
  await page.getByLabel('Your API key').fill(svc.keys.business);
  await page.getByRole('button', { name: 'Explore' }).click();
}

async function expectNoViolations() {
  expect(await allViolations(page)).toEqual([]);
}

beforeAll(async () => {
  svc = await startLiveService();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('explorer views', { timeout: 90_000 }, () => {
  it('has no accessibility violations on the key page', async () => {
    await page.goto(`${svc.base}/explore`);
    await page.getByLabel('Your API key').waitFor();
    await expectNoViolations();
  });

  it('regression: loading the page logs no console error (it asked for /favicon.ico, a 404)', async () => {
    consoleErrors.length = 0;
    await page.goto(`${svc.base}/explore`);
    await page.getByLabel('Your API key').waitFor();
    await page.waitForLoadState('networkidle');
    expect(consoleErrors).toEqual([]);
  });

  it('marks where a geography’s definition changes: Connecticut’s planning regions from 2022', async () => {
    const detail = await api<{ data: { definitions: { valid_from: number }[] } }>('/v1/geographies/county:09110');
    expect(detail.data.definitions.map((d) => d.valid_from)).toEqual([2022]);
    await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2023&level=county&within=state:09&geo=county:09110&from=2018&to=2023');
    const marker = page.locator('figure.series g.def[data-vintage="2022"]');
    await marker.waitFor();
    // Visible on the chart, with a label.
    expect(await marker.locator('text').textContent()).toContain('2022');
    expect((await marker.locator('line').boundingBox())!.height).toBeGreaterThan(100);
    // Announced: the chart's text alternative, the list of changes and the table row.
    const alt = await page.locator('figure.series svg[role="img"]').getAttribute('aria-label');
    expect(alt).toMatch(/2022, First defined in 2022/);
    expect(alt).toContain('planning regions');
    await expect(page.getByRole('list', { name: 'Changes of geography definition' }).textContent()).resolves.toContain(
      '2022: First defined in 2022',
    );
    const row2022 = page.getByTestId('series-table').locator('tbody tr', { has: page.locator('th', { hasText: '2022' }) });
    await expect(row2022.textContent()).resolves.toContain('First defined in 2022');
    expect(await page.locator('figure.series g.def').count()).toBe(1);
    await screenshot(page, 'explore-05-definition-change');
    await expectNoViolations();

    // The legacy county on the other side of the change: all its values here are null, the
    // marker and the API's note are still there.
    await page.getByLabel('Geography', { exact: true }).fill('county:09001');
    await page.getByLabel('Geography', { exact: true }).press('Enter');
    await page.getByLabel('Geography', { exact: true }).blur();
    await page.getByRole('heading', { name: /Over time: Fairfield County, Connecticut/ }).waitFor();
    // The heading names the new place as soon as it is resolved; its series (and the changes and
    // notes drawn from it) follow when the request answers, so those are polled, not read once.
    await expect
      .poll(() => page.getByTestId('definition-changes').textContent(), { timeout: 15_000 })
      .toContain('Not defined from 2022: last defined in 2021');
    await expect
      .poll(() => page.getByRole('list', { name: 'Notes from the API about this geography' }).textContent(), { timeout: 15_000 })
      .toContain('exists in ACS vintages 2005–2021');
    await page.getByText('No values for these years (reasons in the table).').waitFor();
    await expectNoViolations();

    // A geography that never changed gets no marker.
    await page.getByLabel('Geography', { exact: true }).fill('state:06');
    await page.getByLabel('Geography', { exact: true }).blur();
    await page.getByRole('heading', { name: /Over time: California/ }).waitFor();
    // The new place's series and definitions arrive after its heading (and wait their turn in the
    // page's request queue): once California's series is drawn, Fairfield's marker and list must go.
    await page.locator('figure.series').filter({ hasText: 'for California' }).waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator('figure.series g.def').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('definition-changes').count(), { timeout: 15_000 }).toBe(0);
    expect(errors).toEqual([]);
  });

  it('resolves the map’s parent area typed in words, with ambiguity choices answered by keyboard', async () => {
    await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2023&level=state&geo=state:48');
    const within = page.getByLabel(/^Within \(/);
    await within.waitFor();
    await within.focus();
    await page.keyboard.type('Texas');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Map: counties of Texas, ACS 5-year 2023' }).waitFor();
    await page.waitForFunction((q) => location.search.includes(q), 'within=state%3A48');
    await page.waitForFunction((q) => location.search.includes(q), 'level=county');
    await page.waitForFunction(() => document.querySelectorAll('svg.map path.shape').length === 254);
    // Said in words, not keys (issue 37 §8): the status named the key, "(state:48)", "(metro:12420)".
    await expect(page.getByTestId('within-status').textContent()).resolves.toBe('Found Texas, a state; the map shows its counties.');

    // "Cook County" names three counties: the API's candidates become buttons, focus on the first.
    await within.fill('');
    await within.focus();
    await page.keyboard.type('Cook County');
    await page.keyboard.press('Enter');
    const choices = page.getByRole('group', { name: /“Cook County” matches 3 places/ });
    await choices.waitFor();
    const err = await fetch(`${svc.base}/v1/geographies/Cook%20County/children?type=tract&limit=1`, {
      headers: { 'X-API-Key': svc.keys.business },
    });
    const candidates = ((await err.json()) as { candidates: { key: string; name: string }[] }).candidates;
    expect(await choices.getByRole('button').allTextContents()).toEqual(candidates.map((c) => `${c.name} ${c.key}`));
    await expect(page.getByTestId('within-status').textContent()).resolves.toContain('matches 3 places');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain(candidates[0]!.name);
    await screenshot(page, 'explore-06-within-choices');
    await expectNoViolations();
    const illinois = candidates.findIndex((c) => c.key === 'county:17031');
    for (let i = 0; i < illinois; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Map: tracts of Cook County, Illinois, ACS 5-year 2023' }).waitFor();
    await page.waitForFunction((q) => location.search.includes(q), 'within=county%3A17031');
    await page.waitForFunction((q) => location.search.includes(q), 'level=tract');
    expect(await within.inputValue()).toBe('Cook County, Illinois');
    await page.locator('details.request').first().locator('summary').click();
    await expect(page.locator('details.request').first().textContent()).resolves.toContain(encodeURIComponent('tract:17031*'));

    // Name, comma, state abbreviation.
    await within.fill('Harris County, TX');
    await within.press('Enter');
    await page.getByRole('heading', { name: 'Map: tracts of Harris County, Texas, ACS 5-year 2023' }).waitFor();
    await page.waitForFunction((q) => location.search.includes(q), 'within=county%3A48201');

    // Words that name nothing: the API's answer, next to the field.
    await within.fill('Xyzzyville');
    await within.press('Enter');
    await expect(page.getByTestId('within-problem').textContent()).resolves.toMatch(/Xyzzyville/);
    expect(await page.getByRole('group', { name: 'Closest names:' }).getByRole('button').count()).toBeGreaterThan(0);
    expect(await within.getAttribute('aria-invalid')).toBe('true');
    await expectNoViolations();

    // A metro: its counties, as the API expands the metro's name.
    await within.fill('Austin-Round Rock, TX');
    await within.press('Enter');
    await page.getByRole('heading', { name: 'Map: counties of Austin-Round Rock-San Marcos, TX Metro Area, ACS 5-year 2023' }).waitFor();
    await page.waitForFunction((q) => location.search.includes(q), 'within=metro%3A12420');
    const metroStatus = await page.getByTestId('within-status').textContent();
    expect(metroStatus).toMatch(/^Found Austin-Round Rock-San Marcos, TX Metro Area, a metro area; the map shows its counties\. /);
    expect(metroStatus).not.toMatch(/metro:|12420/);
    const metro = await api<{ data: { geo_key: string }[] }>(
      `/v1/data?variables=B01003_001E&geo=${encodeURIComponent('county:Austin-Round Rock-San Marcos, TX Metro Area')}&dataset=acs5&vintage=2023`,
    );
    await page.waitForFunction((n) => document.querySelectorAll('svg.map path.shape').length === n, metro.data.length);
    expect((await page.locator('svg.map path.shape').evaluateAll((els) => els.map((e) => e.getAttribute('data-geo')))).sort()).toEqual(
      metro.data.map((c) => c.geo_key).sort(),
    );

    // Back to the whole country.
    await within.fill('United States');
    await within.press('Enter');
    await page.getByRole('heading', { name: 'Map: counties of the United States, ACS 5-year 2023' }).waitFor(); // the level stays
    await page.waitForFunction((q) => location.search.includes(q), 'within=us');
  }, 180_000); // two tract maps: the tract boundaries are 20 MB

  it('asks for a county before mapping tracts (the empty state), without violations', async () => {
    await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2023&level=state&geo=state:48');
    await page.locator('svg.map path.shape').first().waitFor();
    await page.getByLabel('Map', { exact: true }).selectOption('tract');
    await page.getByTestId('map-empty').waitFor();
    expect(await page.locator('svg.map').count()).toBe(0);
    await screenshot(page, 'explore-09-tracts-need-a-county');
    await expectNoViolations();
  });

  it('shows a raw census code with a human label and keeps the code visible', async () => {
    const cell = (
      await api<{ data: { label: string; table_id: string; table_title: string }[] }>(
        '/v1/data?variables=B17001_010E&geo=state:06&dataset=acs1&vintage=2018',
      )
    ).data[0]!;
    expect(cell.label).toBe('Estimate!!Total!!Income in the past 12 months below poverty level!!Male!!18 to 24 years');
    await openWithKey('variable=B17001_010E&dataset=acs1&vintage=2018&level=state&geo=state:06&from=2005&to=2018');
    const h1 = page.getByRole('heading', { level: 1 });
    await page.locator('svg.map path.shape').first().waitFor();
    const expected = `${cell.table_title}: Income in the past 12 months below poverty level › Male › 18 to 24 years`;
    await expect(h1.textContent()).resolves.toBe(expected);
    const code = await page.getByTestId('variable-code').textContent();
    expect(code).toContain('B17001_010E');
    expect(code).toContain(cell.table_id);
    expect(code).toContain(cell.label); // the Bureau's own label stays available, in small print
    expect(await page.title()).toBe(`${expected} (B17001_010E) · Explorer · Census Data Service`);
    await page.locator('figure.series svg').waitFor();
    for (const alt of [
      await page.locator('svg.map').getAttribute('aria-label'),
      await page.locator('figure.series svg').getAttribute('aria-label'),
    ])
      expect(alt).not.toContain('!!');
    await screenshot(page, 'explore-07-raw-code');
    await expectNoViolations();
  });

  it('answers whether two states’ poverty rates differ significantly, with the MOE arithmetic', async () => {
    await openWithKey('variable=B19013_001E&dataset=acs1&vintage=2018&level=state&geo=state:06&from=2005&to=2018');
    // Keyboard only: search the variable, pick it, select two states on the map, add each.
    const search = page.getByLabel(/^Variable/);
    await search.waitFor();
    await search.focus();
    await page.keyboard.type('poverty rate');
    await page.keyboard.press('Enter');
    const hit = page.getByRole('list', { name: 'Matching variables' }).getByRole('button', { name: /^Poverty rate: share of people/ });
    await hit.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: /^Poverty rate/ }).waitFor();
    await page.waitForFunction((q) => location.search.includes(q), 'variable=core_poverty_rate');
    await page.waitForFunction(() => document.querySelector('svg.map')?.getAttribute('aria-label')?.includes('Poverty rate'));
    for (const [key, name] of [
      ['state:06', 'California'],
      ['state:48', 'Texas'],
    ] as const) {
      await page.locator(`path[data-geo="${key}"]`).focus();
      await page.keyboard.press('Enter');
      const add = page.getByRole('button', { name: `Add ${name} to the comparison` });
      await add.waitFor();
      await add.focus();
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: `Remove ${name} (${key})` }).waitFor();
    }
    const answers = page.getByTestId('compare-answers');
    await answers.waitFor();
    const cmp = await api<{
      data: {
        geo_key: string;
        estimate: number;
        moe_numeric: number;
        comparison: { difference: number; difference_moe: number; significant: boolean } | null;
      }[];
    }>('/v1/compare?variables=core_poverty_rate&geo=state:06;state:48&dataset=acs1&vintage=2018');
    const [ca, tx] = cmp.data;
    const text = (await answers.textContent())!;
    expect(tx!.comparison!.significant).toBe(Math.abs(tx!.comparison!.difference) > tx!.comparison!.difference_moe);
    expect(text).toContain(
      `Texas vs California: the difference is ${tx!.comparison!.significant ? '' : 'not '}statistically significant at the 90% confidence level`,
    );
    const f = (n: number) => n.toFixed(2);
    expect(text).toContain(`${f(tx!.estimate)}% − ${f(ca!.estimate)}% = ${f(tx!.comparison!.difference)} percentage points`);
    expect(text).toContain(`√(${f(tx!.moe_numeric)}² + ${f(ca!.moe_numeric)}²) = ${f(tx!.comparison!.difference_moe)} percentage points`);
    expect(Math.hypot(tx!.moe_numeric, ca!.moe_numeric)).toBeCloseTo(tx!.comparison!.difference_moe, 9);
    const z = Math.abs(tx!.comparison!.difference) / (tx!.comparison!.difference_moe / 1.645);
    expect(text).toContain(
      `z = ${f(Math.abs(tx!.comparison!.difference))} ÷ (${f(tx!.comparison!.difference_moe)} ÷ 1.645) = ${z.toFixed(2)}`,
    );
    await page.waitForFunction((q) => location.search.includes(q), 'compare=state%3A06%3Bstate%3A48');
    await screenshot(page, 'explore-08-poverty-significance');
    await expectNoViolations();
    expect(errors).toEqual([]);
  });
});
