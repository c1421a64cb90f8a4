// The analyst's tools in the pages, in headless Chromium against the real server and the test
// build: a custom region chosen on the map by keyboard (Shift+Enter) and answered by
// geo=region(…) with the figures the API gives (and the members' own values summed), a region
// with a member that has no value, saving a region to the signed-in account, constant dollars in
// the explorer's series and the profile's change over time (values equal /v1/timeseries with
// dollars=), and the page's request queue keeping a Free key under its concurrency limit.
// axe-core (every impact) on each new state; screenshots of each.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { allViolations, launchBrowser, screenshot, SCREENSHOT_DIR } from '../support/browser.js';
import { startLiveService, type LiveService } from '../support/live-service.js';

let svc: LiveService;
let browser: Browser;
let page: Page;
const errors: string[] = [];

interface ApiCell {
  geo_key: string;
  vintage: number;
  estimate: number | null;
  moe_numeric: number | null;
  estimate_annotation: { code: string } | null;
  dollars?: { adjusted: boolean; target_year?: number };
}

async function api<T>(p: string, key = svc.keys.business): Promise<T> {
  const r = await fetch(`${svc.base}${p}`, { headers: { 'X-API-Key': key } });
  expect(r.status, p).toBe(200);
  return (await r.json()) as T;
}

/** As the page writes a number: whole, grouped, a dollar sign for dollars. */
const whole = (n: number, dollars = false) => `${dollars ? '$' : ''}${Math.round(n).toLocaleString('en-US')}`;

async function openExplorer(query: string, key = svc.keys.business) {
  await page.goto(`${svc.base}/explore?${query}`);
  await page.getByLabel('Your API key').fill(key);
  await page.getByRole('button', { name: 'Explore' }).click();
}

async function signedInContext(email: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p = await context.newPage();
  await p.goto(`${svc.base}/dashboard/auth/login?next=/dashboard`);
  await p.getByLabel('E-mail address').fill(email);
  await p.getByRole('button', { name: 'Continue' }).click();
  await p.waitForURL(`${svc.base}/dashboard`);
  await p.close();
  return context;
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

describe('custom regions in the explorer', { timeout: 120_000 }, () => {
  it('builds a region on the county map by keyboard and shows the API’s aggregate, equal to its members summed', async () => {
    await openExplorer('variable=B25001_001E&dataset=acs5&vintage=2022&level=county&within=state:06&geo=county:06001');
    await page.locator('svg.map path.shape').first().waitFor();
    // Keyboard only: the skip link to the map, then Tab into the map's one stop (the selected county).
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to the map');
    await page.keyboard.press('Enter');
    let presses = 0;
    while (presses < 5 && !(await page.evaluate(() => document.activeElement?.classList.contains('shape')))) {
      await page.keyboard.press('Tab');
      presses++;
    }
    expect(await page.evaluate(() => (document.activeElement as SVGElement).dataset.geo)).toBe('county:06001');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.press('ArrowRight');
    const second = await page.evaluate(() => (document.activeElement as SVGElement).dataset.geo!);
    expect(second).not.toBe('county:06001');
    await page.keyboard.press('Shift+Enter');
    const members = page.getByTestId('region-members');
    await expect.poll(() => members.locator('li').count()).toBe(2);
    expect(await page.locator('svg.map path.shape.in-region').count()).toBe(2);
    expect(new URL(page.url()).searchParams.get('region')).toBe(`county:06001;${second}`);

    const figure = page.getByTestId('region-value');
    await figure.waitFor();
    const region = await api<{ data: ApiCell[]; meta: { notes: string[] } }>(
      `/v1/data?variables=B25001_001E&geo=${encodeURIComponent(`region(county:06001,${second})`)}&dataset=acs5&vintage=2022`,
    );
    const parts = await api<{ data: ApiCell[] }>(`/v1/data?variables=B25001_001E&geo=county:06001;${second}&dataset=acs5&vintage=2022`);
    const sum = parts.data.reduce((s, c) => s + c.estimate!, 0);
    expect(region.data[0]!.estimate).toBe(sum);
    const text = (await figure.textContent())!;
    expect(text).toContain(whole(sum));
    expect(text).toContain(`± ${whole(region.data[0]!.moe_numeric!)}`);
    // The approximation note comes from the API's meta.
    const notes = (await page.getByTestId('region-notes').textContent())!;
    expect(notes).toMatch(/approximation/);
    expect(region.meta.notes.some((n) => notes.includes(n))).toBe(true);
    // Shift+Enter again takes the county out.
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => members.locator('li').count()).toBe(1);
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => members.locator('li').count()).toBe(2);
    await page.getByTestId('region-value').waitFor();
    expect(await allViolations(page)).toEqual([]);
    await screenshot(page, 'explore-20-region');
    expect(errors).toEqual([]);
  });

  it('adds the series’ place from the Geography field, and shows a null aggregate with the member that caused it', async () => {
    // Connecticut's legacy county 09001 is not defined in ACS 2022 (planning regions from 2022).
    await openExplorer('variable=B25001_001E&dataset=acs5&vintage=2022&level=county&within=state:06&geo=county:09001&region=county:06001');
    await page.getByRole('button', { name: /to the region$/ }).click();
    const nul = page.getByTestId('region-null');
    await nul.waitFor();
    expect(await nul.getAttribute('data-code')).toBe('region_member_missing');
    const missing = (await page.getByTestId('region-missing').textContent())!;
    expect(missing).toContain('county:09001');
    expect(missing).toContain('geography not defined');
    expect(await allViolations(page)).toEqual([]);
    await screenshot(page, 'explore-21-region-member-missing');
  });

  it('saves the region to the signed-in account, where the API lists it', async () => {
    const context = await signedInContext('region-saver@example.org');
    const p = await context.newPage();
    await p.goto(`${svc.base}/explore?variable=B25001_001E&dataset=acs5&vintage=2022&region=county:06001;county:06013`);
    await p.getByTestId('region-value').waitFor();
    await p.getByLabel(/^Save as/).fill('east-bay');
    await p.getByRole('button', { name: 'Save region' }).click();
    await expect.poll(() => p.getByTestId('region-saved').textContent()).toContain('geo=region:east-bay');
    const listed = await p.evaluate(async () => (await fetch('/v1/account/regions')).json());
    expect(listed.data).toEqual([expect.objectContaining({ name: 'east-bay', members: ['county:06001', 'county:06013'] })]);
    expect(await allViolations(p)).toEqual([]);
    await context.close();
  });
});

describe('constant dollars', { timeout: 120_000 }, () => {
  it('restates the explorer’s series in one year’s dollars, every value and label as the API gives them', async () => {
    await openExplorer('variable=B19013_001E&dataset=acs1&vintage=2018&level=state&geo=state:06&from=2012&to=2018');
    const table = page.getByTestId('series-table');
    await table.waitFor();
    await page.getByLabel('Dollars', { exact: true }).selectOption('2018');
    await expect.poll(() => new URL(page.url()).searchParams.get('dollars')).toBe('2018');
    const series = await api<{ data: ApiCell[] }>(
      '/v1/timeseries?variables=B19013_001E&geo=state:06&dataset=acs1&from=2012&to=2018&dollars=2018',
    );
    const first = series.data.find((c) => c.vintage === 2012)!;
    expect(first.dollars).toMatchObject({ adjusted: true, target_year: 2018 });
    const row2012 = table.locator('tbody tr', { has: page.locator('th', { hasText: '2012' }) });
    await expect.poll(() => row2012.textContent()).toContain(whole(first.estimate!, true));
    for (const c of series.data) {
      const row = table.locator('tbody tr', { has: page.locator('th', { hasText: String(c.vintage) }) });
      const text = (await row.textContent())!;
      if (c.estimate === null) continue;
      expect(text).toContain(whole(c.estimate, true));
      expect(text).toContain(`± ${whole(c.moe_numeric!, true)}`);
      expect(text).toContain('in 2018 dollars');
    }
    const alt = await page.locator('figure.series svg[role="img"]').getAttribute('aria-label');
    expect(alt).toContain('in constant 2018 dollars');
    expect(await page.locator('figure.series figcaption').textContent()).toContain('CPI-U-RS');
    expect(await allViolations(page)).toEqual([]);
    await screenshot(page, 'explore-22-constant-dollars');
  });

  it('offers the profile’s change over time in constant dollars of the profile’s year', async () => {
    await page.goto(`${svc.base}/profile/state:48`);
    await page.getByLabel('Your API key').fill(svc.keys.business);
    await page.getByRole('button', { name: 'Show profile' }).click();
    await page.getByTestId('trends-loaded').waitFor();
    expect(await page.getByTestId('dollars-note').textContent()).not.toContain('once the API serves them');
    const year = await page.getByTestId('vintage').textContent();
    const vintage = /(\d{4})/.exec(year!)![1]!;
    const dataset = /5-year/.test(year!) ? 'acs5' : 'acs1';
    await page.getByLabel('Dollars', { exact: true }).selectOption(vintage);
    await page.locator(`[data-testid="trends-loaded"][data-dollars="${vintage}"]`).waitFor();
    const series = await api<{ data: (ApiCell & { variable: string })[] }>(
      `/v1/timeseries?variables=core_median_household_income&geo=state:48&dataset=${dataset}&dollars=${vintage}`,
    );
    const trend = (await page.locator('.trend[data-variable="core_median_household_income"]').textContent())!;
    let checked = 0;
    for (const c of series.data)
      if (c.estimate !== null) {
        expect(trend).toContain(whole(c.estimate, true));
        checked++;
      }
    expect(checked).toBeGreaterThan(3);
    expect(trend).toContain(`in ${vintage} dollars`);
    expect(await page.getByTestId('dollars-note').textContent()).toContain(`restated in ${vintage} dollars`);
    expect(await allViolations(page)).toEqual([]);
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.locator('#trends').screenshot({ path: path.join(SCREENSHOT_DIR, 'profile-20-constant-dollars.png') });
  });
});

describe('the request queue', { timeout: 120_000 }, () => {
  it('keeps a Free key’s explorer under its two concurrent requests: none refused for concurrency', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await context.newPage();
    let inFlight = 0;
    let most = 0;
    const refused: string[] = [];
    const isApi = (u: string) => new URL(u).pathname.startsWith('/v1/');
    p.on('request', (r) => isApi(r.url()) && (most = Math.max(most, ++inFlight)));
    p.on('requestfinished', (r) => isApi(r.url()) && inFlight--);
    p.on('requestfailed', (r) => isApi(r.url()) && inFlight--);
    p.on('response', (r) => isApi(r.url()) && r.status() === 429 && refused.push(r.url()));
    // Series, comparison, region and names at once: five requests a page would send together.
    await p.goto(
      `${svc.base}/explore?variable=B17001_002E&dataset=acs1&vintage=2018&level=state&geo=state:48&compare=state:06;state:48;state:36&region=state:06;state:48`,
    );
    await p.getByLabel('Your API key').fill(svc.keys.free);
    await p.getByRole('button', { name: 'Explore' }).click();
    await p.getByTestId('series-table').waitFor();
    await p.getByTestId('region-value').waitFor();
    await p.waitForLoadState('networkidle');
    expect(refused).toEqual([]);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
    await context.close();
  });
});
