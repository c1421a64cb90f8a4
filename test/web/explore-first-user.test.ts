// What a first user trips over in the explorer, each as a regression test in headless Chromium
// against the real server and the test build's data: the upgrade message names the lowest plan
// that unlocks the whole view, the map is one Tab stop with arrow keys inside and skip links reach
// the table, dollars are labelled per year, the ranked table gives reasons in words, numbers are
// formatted as people write them, the series follows the map, copy buttons work without the
// Clipboard API, and an empty or partial map says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { allViolations, launchBrowser, screenshot } from '../support/browser.js';
import { startLiveService, type LiveService } from '../support/live-service.js';
import { whyWords, type Annotation } from '../../web/shared/missing.js';

let svc: LiveService;
let browser: Browser;
let page: Page;
const errors: string[] = [];

async function apiStatus(p: string, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${svc.base}${p}`, { headers: { 'X-API-Key': key } });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function api<T>(p: string, key = svc.keys.business): Promise<T> {
  const r = await apiStatus(p, key);
  expect(r.status, p).toBe(200);
  return r.body as T;
}

async function openWithKey(query: string, key = svc.keys.business) {
  await page.goto(`${svc.base}/explore?${query}`);
  await page.getByLabel('Your API key').fill(key);
  await page.getByRole('button', { name: 'Explore' }).click();
}

beforeAll(async () => {
  svc = await startLiveService();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('explorer: what a first user trips over', { timeout: 90_000 }, () => {
  it('names the lowest plan that unlocks the whole view (county boundaries need Pioneer, the wildcard Pro)', async () => {
    // The two requests behind a Texas counties map, refused on Free for different plans.
    const boundaries = await apiStatus('/v1/boundaries/county', svc.keys.free);
    const data = await apiStatus('/v1/data?variables=B01003_001E&geo=county:48*&dataset=acs5&vintage=2023', svc.keys.free);
    expect([boundaries.status, boundaries.body.required_plan]).toEqual([403, 'pioneer']);
    expect([data.status, data.body.required_plan]).toEqual([403, 'pro']);
    // Pioneer may download county shapes, so its map asks for Texas's counties by key instead (see
    // pages-first-user.test.ts); Free may not, and is told the one plan that answers both.
    for (const key of [svc.keys.free]) {
      await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2023&level=county&within=state:48&geo=state:48', key);
      const alert = page.locator('#map-title').locator('..').getByRole('alert');
      await alert.waitFor();
      const link = alert.getByRole('link');
      expect(await link.textContent()).toBe('See the Pro plan');
      expect(await link.getAttribute('href')).toMatch(/\/dashboard\/billing\?plan=pro$/);
      const text = (await alert.textContent())!;
      if (key === svc.keys.free) {
        // Both refusals, under the one plan that cures them.
        expect(text).toContain('This view needs the Pro plan or above.');
        expect(text).toContain(String(data.body.detail));
        expect(text).toContain(String(boundaries.body.detail));
        await screenshot(page, 'explore-10-upgrade-names-pro');
      }
      expect(await allViolations(page)).toEqual([]);
    }
    expect(errors).toEqual([]);
  });
  it('reaches the table below the US counties map from the page top in at most 10 key presses', async () => {
    await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2023&level=county&within=us&geo=county:48453');
    await page.getByTestId('ranked').waitFor({ timeout: 60_000 });
    const shapes = await page.locator('svg.map path.shape').count();
    expect(shapes).toBeGreaterThan(3000);
    // One Tab stop for the whole map.
    expect(await page.locator('svg.map path.shape[tabindex="0"]').count()).toBe(1);
    // From the page top, as after a page load (focus on the document): the first Tab stops are the skip links.
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      document.body.tabIndex = -1;
      document.body.focus();
      document.body.removeAttribute('tabindex');
    });
    const inTable = () => page.evaluate(() => !!document.activeElement?.closest('[data-testid="ranked"]'));
    const keys: string[] = [];
    const press = async (k: string) => (keys.push(k), page.keyboard.press(k));
    await press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the map');
    await press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the ranked table');
    await page.screenshot({ path: `${await import('../support/browser.js').then((m) => m.SCREENSHOT_DIR)}/explore-11-skip-link.png` });
    await press('Enter');
    while (!(await inTable()) && keys.length < 10) await press('Tab');
    expect(await inTable()).toBe(true);
    expect(keys.length).toBeLessThanOrEqual(10);
    console.log(`explore: page top → table below the US counties map in ${keys.length} key presses (${keys.join(', ')})`);
  }, 120_000);

  it('moves between map shapes with the arrow keys inside one Tab stop', async () => {
    await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2023&level=state&geo=state:48');
    await page.locator('svg.map path.shape').first().waitFor();
    expect(await page.locator('svg.map path.shape[tabindex="0"]').count()).toBe(1);
    // Tab from the field before the map lands on the map once: the selected state, Texas.
    await page.getByRole('button', { name: 'Show' }).focus();
    await page.keyboard.press('Tab');
    const focused = () => page.evaluate(() => (document.activeElement as SVGElement | null)?.dataset?.geo);
    expect(await focused()).toBe('state:48');
    const centre = (key: string) =>
      page
        .locator(`path[data-geo="${key}"]`)
        .boundingBox()
        .then((b) => ({ x: b!.x + b!.width / 2, y: b!.y + b!.height / 2 }));
    const tx = await centre('state:48');
    // West of Texas is New Mexico; every arrow lands on a shape whose centre lies that way.
    await page.keyboard.press('ArrowLeft');
    expect(await focused()).toBe('state:35');
    expect(await page.getByTestId('tooltip').textContent()).toContain('New Mexico');
    let at = await centre('state:35');
    expect(at.x).toBeLessThan(tx.x);
    for (const [key, ok] of [
      ['ArrowRight', (a: { x: number }, b: { x: number }) => b.x > a.x],
      ['ArrowUp', (a: { y: number }, b: { y: number }) => b.y < a.y],
      ['ArrowRight', (a: { x: number }, b: { x: number }) => b.x > a.x],
      ['ArrowDown', (a: { y: number }, b: { y: number }) => b.y > a.y],
    ] as const) {
      await page.keyboard.press(key);
      const next = await centre((await focused())!);
      expect(ok(at as never, next as never), key).toBe(true);
      at = next;
    }
    // Still one Tab stop, now where the focus is; Enter picks it for the series.
    const here = (await focused())!;
    expect(await page.locator('svg.map path.shape[tabindex="0"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-geo')))).toEqual(
      [here],
    );
    const name = await page.locator(`path[data-geo="${here}"]`).getAttribute('aria-label');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `Over time: ${name!.split(':')[0]}` }).waitFor();
    // Tab leaves the map at once.
    await page.keyboard.press('Tab');
    expect(await focused()).toBeUndefined();
    expect(await page.evaluate(() => !!document.activeElement?.closest('svg.map'))).toBe(false);
    expect(await allViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
  it('labels each year of a dollar series in its own dollars, not the map year’s', async () => {
    const series = await api<{ data: { vintage: number; label: string; table_title: string; estimate: number | null }[] }>(
      '/v1/timeseries?variables=B19013_001E&geo=state:06&dataset=acs1&from=2005&to=2018',
    );
    // The Bureau's title names one year's dollars; the values are each in their own year's.
    expect(series.data.at(-1)!.table_title).toMatch(/\(in 2018 inflation-adjusted dollars\)/i);
    await openWithKey('variable=B19013_001E&dataset=acs1&vintage=2018&level=state&geo=state:06&from=2005&to=2018');
    const table = page.getByTestId('series-table');
    await table.locator('tbody tr').first().waitFor();
    const h1 = (await page.getByRole('heading', { level: 1 }).textContent())!;
    expect(h1).toMatch(/^Median Household Income in the Past 12 Months$/i);
    expect(await page.title()).not.toMatch(/inflation-adjusted/i);
    await page.getByRole('heading', { name: 'Map: states of the United States, ACS 1-year 2018 (in 2018 dollars)' }).waitFor();
    const alt = (await page.locator('figure.series svg[role="img"]').getAttribute('aria-label'))!;
    expect(alt).not.toMatch(/2018 inflation-adjusted/i);
    expect(alt).toContain('each year in its own year’s dollars');
    for (const c of series.data) {
      const row = table.locator('tbody tr', { has: page.locator('th', { hasText: String(c.vintage) }) });
      if (c.estimate !== null) expect(await row.textContent()).toContain(`in ${c.vintage} dollars`);
      else expect(await row.textContent()).not.toContain('dollars');
    }
    expect(await page.locator('figure.series figcaption').textContent()).toContain('each year in its own year’s dollars');
    await page.getByTestId('series-table').scrollIntoViewIfNeeded();
    await screenshot(page, 'explore-12-dollars-per-year');
    expect(await allViolations(page)).toEqual([]);
  });
  it('gives the ranked table’s missing values their reason in words, not a code', async () => {
    const q = 'variables=B19013E_001E&geo=state:*&dataset=acs1&vintage=2005';
    const data = await api<{
      data: { geo_name: string; estimate: number | null; estimate_annotation: { code: string; meaning: string } | null }[];
    }>(`/v1/data?${q}`);
    const nulls = data.data.filter((c) => c.estimate === null);
    expect(nulls.map((c) => c.estimate_annotation!.code)).toContain('not_published');
    await openWithKey('variable=B19013E_001E&dataset=acs1&vintage=2005&level=state&geo=state:21');
    const table = page.getByTestId('ranked');
    await table.waitFor();
    for (const c of nulls) {
      const row = table.locator('tbody tr', { has: page.getByRole('button', { name: c.geo_name, exact: true }) });
      const text = (await row.textContent())!;
      // Which part is missing and why, in words (web/shared/missing.ts), not the code.
      expect(text).toContain(`No value: ${whyWords(c.estimate_annotation as unknown as Annotation)}.`);
      expect(text).not.toContain(c.estimate_annotation!.code);
      // The reason for a state's unpublished row does not talk about Puerto Rico.
      expect(text).not.toMatch(/Puerto Rico/);
    }
    await table.locator('tbody tr').last().scrollIntoViewIfNeeded();
    await screenshot(page, 'explore-13-ranked-reasons');
    expect(await allViolations(page)).toEqual([]);
  });
  it('writes −$14,648 (sign before the currency), percentage-point differences in pp, and says why a sixth Add is disabled', async () => {
    type Cmp = { data: { geo_key: string; comparison: { difference: number; difference_moe: number } | null }[] };
    const dollars = await api<Cmp>('/v1/compare?variables=B19013_001E&geo=state:06;state:48&dataset=acs1&vintage=2018');
    const d = dollars.data.find((c) => c.geo_key === 'state:48')!.comparison!;
    expect(Math.round(d.difference)).toBe(-14648);
    await openWithKey('variable=B19013_001E&dataset=acs1&vintage=2018&level=state&geo=state:48&compare=state:06;state:48');
    const table = page.getByTestId('compare');
    await table.waitFor();
    const moe = `$${Math.round(d.difference_moe).toLocaleString('en-US')}`;
    await expect(table.textContent()).resolves.toContain(`−$14,648 ± ${moe}`);
    expect(await table.textContent()).not.toContain('$-');

    const pct = await api<Cmp>('/v1/compare?variables=core_poverty_rate&geo=state:06;state:48&dataset=acs1&vintage=2018');
    const p = pct.data.find((c) => c.geo_key === 'state:48')!.comparison!;
    await openWithKey('variable=core_poverty_rate&dataset=acs1&vintage=2018&level=state&geo=state:48&compare=state:06;state:48');
    await page.getByTestId('pp-note').waitFor();
    const row = page.getByTestId('compare').locator('tbody tr', { has: page.locator('th', { hasText: 'Texas' }) });
    expect(await row.textContent()).toContain(`${p.difference.toFixed(1)} pp ± ${p.difference_moe.toFixed(1)} pp`);
    expect(await page.getByTestId('compare').locator('thead').textContent()).toContain('Difference from first (pp)');

    // Five places compared: the sixth Add is disabled and says why (the reason is its description).
    await openWithKey(
      'variable=B19013_001E&dataset=acs1&vintage=2018&level=state&geo=state:36&compare=state:06;state:48;state:12;state:17;state:42',
    );
    const add = page.getByRole('button', { name: 'Add New York to the comparison' });
    await add.waitFor();
    expect(await add.isDisabled()).toBe(true);
    const why = 'This page compares at most 5 geographies; remove one to add another.';
    expect(await page.getByTestId('add-refusal').textContent()).toBe(why);
    expect(await add.evaluate((b) => document.getElementById(b.getAttribute('aria-describedby')!)?.textContent)).toBe(why);
    await page.getByTestId('compare').waitFor();
    await screenshot(page, 'explore-14-sixth-add');

    // A pair that is not tested says why in words, not with the annotation's code.
    await openWithKey('variable=B01003_001E&dataset=acs1&vintage=2018&level=state&geo=state:36&compare=state:06;state:48');
    const untested = await api<{ data: { geo_key: string; comparison: { not_tested_reason: string | null } | null }[] }>(
      '/v1/compare?variables=B01003_001E&geo=state:06;state:48&dataset=acs1&vintage=2018',
    );
    const code = untested.data.find((c) => c.geo_key === 'state:48')!.comparison!.not_tested_reason!;
    expect(code).toBe('no_data_loaded');
    await page.getByTestId('compare-answers').waitFor();
    for (const where of [page.getByTestId('compare'), page.getByTestId('compare-answers')]) {
      const text = (await where.textContent())!;
      expect(text).not.toContain(code);
      expect(text).toContain('has no value: not loaded');
    }
    expect(await allViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
  it('follows the map’s year and dataset in the time series, and takes a name like “Texas” as its geography', async () => {
    await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2023&level=state&geo=state:06');
    const table = page.getByTestId('series-table');
    const years = () => table.locator('tbody th').allTextContents();
    await page.waitForFunction(() => document.querySelector('[data-testid="series-table"] tbody tr:last-child th')?.textContent === '2023');
    expect((await years())[0]).toBe('2009'); // ACS 5-year starts in 2009
    expect(await page.getByTestId('series-scope').textContent()).toContain('ACS 5-year, 2009–2023');
    await page.locator('details.request').nth(1).locator('summary').click();
    expect(await page.locator('details.request').nth(1).textContent()).toContain('dataset=acs5&from=2009&to=2023');
    // The map's year moves: the series ends there too.
    await page.getByLabel('Year', { exact: true }).fill('2021');
    await page.getByLabel('Year', { exact: true }).press('Tab');
    await page.waitForFunction(() => document.querySelector('[data-testid="series-table"] tbody tr:last-child th')?.textContent === '2021');
    await page.waitForFunction(() => location.search.includes('to=2021'));

    // Names in the Geography field, resolved to keys by the API.
    const geo = page.getByLabel('Geography', { exact: true });
    await geo.fill('Texas');
    await geo.press('Enter');
    await geo.blur();
    await page.getByRole('heading', { name: 'Over time: Texas' }).waitFor();
    await page.waitForFunction(() => location.search.includes('geo=state%3A48'));
    const tx = await api<{ data: { vintage: number; estimate: number | null }[] }>(
      '/v1/timeseries?variables=B01003_001E&geo=state:48&dataset=acs5&from=2009&to=2021',
    );
    const last = tx.data.at(-1)!;
    expect(last.vintage).toBe(2021);
    if (last.estimate !== null) expect(await table.textContent()).toContain(last.estimate.toLocaleString('en-US'));
    await geo.fill('Travis County, TX');
    await geo.blur();
    await page.getByRole('heading', { name: 'Over time: Travis County, Texas' }).waitFor();
    expect(await geo.inputValue()).toBe('county:48453');
    // Words naming several places: the API's candidates, one click away.
    await geo.fill('Cook County');
    await geo.blur();
    const problem = page.getByTestId('geo-problem');
    await problem.waitFor();
    expect(await geo.getAttribute('aria-invalid')).toBe('true');
    await problem.getByRole('button', { name: /Cook County, IL/ }).click();
    await page.getByRole('heading', { name: 'Over time: Cook County, Illinois' }).waitFor();
    expect(await problem.count()).toBe(0);
    await screenshot(page, 'explore-15-series-follows-map');
    expect(await allViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
  it('copies on a plain-http LAN origin (no Clipboard API) and confirms “copy link”', async () => {
    // As on http://192.168.x.y: navigator.clipboard does not exist. Each copy event records what was selected.
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ctx.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true });
      (window as unknown as { copied: string[] }).copied = [];
      document.addEventListener('copy', () => {
        const t = document.activeElement as HTMLTextAreaElement;
        (window as unknown as { copied: string[] }).copied.push(t.value.slice(t.selectionStart, t.selectionEnd));
      });
    });
    const lan = await ctx.newPage();
    lan.on('pageerror', (e) => errors.push(e.message));
    const query = 'variable=B19013_001E&dataset=acs1&vintage=2018&level=state&geo=state:06&from=2005&to=2018';
    await lan.goto(`${svc.base}/explore?${query}`);
    expect(await lan.evaluate(() => navigator.clipboard)).toBeUndefined();
    await lan.getByLabel('Your API key').fill(svc.keys.business);
    await lan.getByRole('button', { name: 'Explore' }).click();
    await lan.locator('svg.map path.shape').first().waitFor();
    const copied = () => lan.evaluate(() => (window as unknown as { copied: string[] }).copied);

    const request = lan.locator('details.request').first();
    await request.locator('summary').click();
    await request.getByRole('button', { name: 'Copy as curl' }).click();
    await request.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await request.getByTestId('copy-status').textContent()).toContain('Copied to the clipboard.');
    const curl = (await request.locator('code').textContent())!;
    expect(curl).toContain('/v1/data?variables=B19013_001E');
    expect(await copied()).toEqual([curl]);

    const link = lan.getByRole('button', { name: 'copy link to this view' });
    await link.click();
    const status = lan.locator('p.hint', { has: lan.getByRole('button', { name: 'Copied' }) }).getByTestId('copy-status');
    await expect(status.textContent()).resolves.toContain('Copied to the clipboard.');
    const url = (await copied())[1]!;
    expect(url).toBe(lan.url());
    expect(url).toContain('geo=state%3A06');
    await screenshot(lan, 'explore-16-copied-without-clipboard-api');
    expect(await allViolations(lan)).toEqual([]);
    await ctx.close();
    expect(errors).toEqual([]);
  });
  it('leaves Puerto Rico out of the legend classes of a map it is not drawn on, and says so', async () => {
    const states = await api<{ data: { geo_key: string; geo_name: string; estimate: number | null }[] }>(
      '/v1/data?variables=B19013_001E&geo=state:*&dataset=acs1&vintage=2018',
    );
    const pr = states.data.find((c) => c.geo_key === 'state:72')!;
    const drawn = states.data.filter((c) => c.geo_key !== 'state:72' && c.estimate !== null).map((c) => c.estimate!);
    // Puerto Rico's median is far below every state's: it used to be the legend's lowest bound.
    expect(pr.estimate!).toBeLessThan(Math.min(...drawn));
    await openWithKey('variable=B19013_001E&dataset=acs1&vintage=2018&level=state&geo=state:06');
    await page.locator('svg.map path.shape').first().waitFor();
    expect(await page.locator('path[data-geo="state:72"]').count()).toBe(0);
    const legend = (await page.getByRole('list', { name: 'Legend' }).locator('li').first().textContent())!;
    const fmt = (n: number) => `$${n.toLocaleString('en-US')}`;
    expect(legend.startsWith(fmt(Math.min(...drawn)))).toBe(true);
    expect(legend).not.toContain(fmt(pr.estimate!));
    expect(await page.getByTestId('off-map').textContent()).toContain('Not on this map and not in its colour classes: Puerto Rico');
    // Its value is still in the ranked table.
    await expect(page.getByTestId('ranked').textContent()).resolves.toContain(fmt(pr.estimate!));
    await page.getByTestId('off-map').scrollIntoViewIfNeeded();
    await screenshot(page, 'explore-17-puerto-rico-off-map');
    expect(await allViolations(page)).toEqual([]);
  });
  it('fetches only the county’s tract shapes for a tract map, and says why a map of tracts of other definitions is empty', async () => {
    const boundaryAnswers: { url: string; bytes: number }[] = [];
    const onResponse = async (r: import('playwright-core').Response) => {
      if (r.url().includes('/v1/boundaries/'))
        boundaryAnswers.push({ url: r.url(), bytes: (await r.body().catch(() => Buffer.alloc(0))).length });
    };
    page.on('response', onResponse);
    await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2018&level=tract&within=county:17031&geo=county:17031');
    await page.waitForFunction(() => document.querySelectorAll('svg.map path.shape').length > 1000, undefined, { timeout: 60_000 });
    const cook = await api<{ data: unknown[] }>('/v1/data?variables=B01003_001E&geo=tract:17031*&dataset=acs5&vintage=2018');
    const shapes = await page.locator('svg.map path.shape').count();
    expect(shapes).toBeGreaterThan(0.95 * cook.data.length);
    await page.waitForLoadState('networkidle');
    const tracts = boundaryAnswers.filter((a) => a.url.includes('/v1/boundaries/tract'));
    expect(tracts).toHaveLength(1);
    expect(tracts[0]!.url).toContain('within=county%3A17031');
    expect(tracts[0]!.bytes).toBeLessThan(2_000_000); // the whole country's tracts are 20 MB
    console.log(`explore: Cook County tract map: ${shapes} shapes from ${(tracts[0]!.bytes / 1e6).toFixed(2)} MB of boundaries`);
    await screenshot(page, 'explore-18-cook-county-tracts');

    // 2023 data has 2020 tracts; the build holds only 2010-definition tract shapes: the map says so.
    await page.getByLabel('Year', { exact: true }).fill('2023');
    await page.getByLabel('Year', { exact: true }).press('Tab');
    const alert = page.locator('#map-title').locator('..').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('none has the geography definitions of ACS 2023');
    expect(await page.locator('svg.map').count()).toBe(0);
    await screenshot(page, 'explore-19-tracts-why-empty');
    expect(await allViolations(page)).toEqual([]);
    page.off('response', onResponse);
    expect(errors).toEqual([]);
  }, 120_000);
});
