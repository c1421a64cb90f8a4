// The explorer (/explore) in headless Chromium against the real server and the test build's real
// data: map, tooltip, ranked table, time series with gaps, comparison with significance, plan
// gates, shareable URL; values checked against the API's own answers; the US-counties map render
// time measured from data arrival.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { allViolations, launchBrowser, screenshot, SCREENSHOT_DIR } from '../support/browser.js';
import { whyWords, type Annotation } from '../../web/shared/missing.js';
import { startLiveService, type LiveService } from '../support/live-service.js';

let svc: LiveService;
let browser: Browser;
let page: Page;
const errors: string[] = [];

async function api<T>(p: string, key = svc.keys.business): Promise<T> {
  const r = await fetch(`${svc.base}${p}`, { headers: { 'X-API-Key': key } });
  expect(r.status, p).toBe(200);
  return (await r.json()) as T;
}

async function openWithKey(query: string, key = svc.keys.business) {
  await page.goto(`${svc.base}/explore?${query}`);
  await page.getByLabel('Your API key').fill(key);
  await page.getByRole('button', { name: 'Explore' }).click();
}

beforeAll(async () => {
  svc = await startLiveService();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] } as never);
  page.on('pageerror', (e) => errors.push(e.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('explorer', { timeout: 90_000 }, () => {
  it('maps the states with a tooltip (estimate, MOE, CV), ranks them, and matches the API', async () => {
    await openWithKey('variable=B19013_001E&dataset=acs1&vintage=2018&level=state&geo=state:06&from=2005&to=2018');
    const ca = page.locator('path[data-geo="state:06"]');
    await ca.waitFor();
    await ca.focus();
    expect(errors).toEqual([]);
    const tip = await page.getByTestId('tooltip').textContent();
    expect(tip).toContain('California');
    expect(tip).toContain('$75,277');
    expect(tip).toContain('± $317');
    expect(tip).toMatch(/CV: 0\.3%/);
    const api1 = await api<{ data: { geo_name: string; estimate: number | null }[] }>(
      '/v1/data?variables=B19013_001E&geo=state:*&dataset=acs1&vintage=2018',
    );
    const top = api1.data.filter((c) => c.estimate !== null).sort((a, b) => b.estimate! - a.estimate!)[0]!;
    const firstRow = page.getByTestId('ranked').locator('tbody tr').first();
    await expect(firstRow.textContent()).resolves.toContain(top.geo_name);
    await expect(firstRow.textContent()).resolves.toContain(`$${top.estimate!.toLocaleString('en-US')}`);
    await screenshot(page, 'explore-01-states');
    expect(await allViolations(page)).toEqual([]); // states map, tooltip shown, ranked table
  });

  it('shows California’s series 2005–2018 with MOE bands and gaps with their reason', async () => {
    const rows = page.getByTestId('series-table').locator('tbody tr');
    await rows.first().waitFor();
    const text = await page.getByTestId('series-table').textContent();
    const series = await api<{
      data: { vintage: number; estimate: number | null; moe_numeric: number | null; estimate_annotation: { meaning: string } | null }[];
    }>('/v1/timeseries?variables=B19013_001E&geo=state:06&dataset=acs1&from=2005&to=2018');
    for (const c of series.data) {
      if (c.estimate !== null) expect(text).toContain(`$${c.estimate.toLocaleString('en-US')}`);
      else expect(text).toContain(`No value: ${whyWords(c.estimate_annotation as unknown as Annotation)}.`);
    }
    expect(series.data.some((c) => c.estimate === null)).toBe(true); // 2016 is not in the default data
    expect(await page.locator('figure.series path.band').count()).toBeGreaterThan(0);
    await page.getByTestId('series-table').scrollIntoViewIfNeeded();
    expect(await allViolations(page)).toEqual([]); // the time series with a gap
  });

  it('compares two states with the significance from /v1/compare', async () => {
    await page.goto(`${svc.base}/explore`); // a reload forgets the key: it lived in memory only
    await page.getByLabel('Your API key').waitFor();
    await openWithKey('variable=B17001_002E&dataset=acs1&vintage=2018&level=state&geo=state:48&compare=state:06;state:48');
    const table = page.getByTestId('compare');
    await table.waitFor();
    const cmp = await api<{ data: { geo_name: string; comparison: { significant: boolean | null } | null }[] }>(
      '/v1/compare?variables=B17001_002E&geo=state:06;state:48&dataset=acs1&vintage=2018',
    );
    const tx = cmp.data.find((c) => c.geo_name === 'Texas')!;
    await expect(table.textContent()).resolves.toContain(tx.comparison!.significant ? 'Yes (90%)' : 'No — within the margins of error');
    expect(page.url()).toContain('compare=state%3A06%3Bstate%3A48');
    await page.locator('details.request').last().locator('summary').click();
    await expect(page.locator('details.request').last().textContent()).resolves.toContain('/v1/compare?variables=B17001_002E');
    await screenshot(page, 'explore-02-compare');
    expect(await allViolations(page)).toEqual([]); // comparison with significance, request shown
  });

  it('draws the US counties map within 1 s of the data arriving, and ranks Texas counties', async () => {
    await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2023&level=county&within=us&geo=county:48201');
    await page.locator('[data-testid="render-ms"][data-ms]').waitFor({ timeout: 60_000 });
    const ms = Number(await page.getByTestId('render-ms').getAttribute('data-ms'));
    const shapes = await page.locator('svg.map path.shape').count();
    expect(shapes).toBeGreaterThan(3000);
    const projectMs = await page.evaluate(() => (window as unknown as { __exploreProjectMs: number }).__exploreProjectMs);
    console.log(
      `explore: US counties map (${shapes} shapes) drawn ${ms} ms after data arrival (projection and path strings ${projectMs} ms)`,
    );
    expect(ms).toBeLessThanOrEqual(1000);
    await screenshot(page, 'explore-03-us-counties');
    expect(await allViolations(page)).toEqual([]); // 3,000+ focusable shapes and their ranked table
    await page.getByLabel(/^Within/).fill('Texas');
    await page.getByLabel(/^Within/).press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('svg.map path.shape').length < 300);
    await page.getByTestId('ranked').waitFor();
    const first = await page.getByTestId('ranked').locator('tbody tr').first().textContent();
    const tx = await api<{ data: { geo_name: string; estimate: number | null }[] }>(
      '/v1/data?variables=B01003_001E&geo=county:48*&dataset=acs5&vintage=2023',
    );
    const biggest = tx.data.sort((a, b) => (b.estimate ?? 0) - (a.estimate ?? 0))[0]!;
    expect(first).toContain(biggest.geo_name);
  }, 240_000); // axe over 3,000+ shapes takes most of a minute on a loaded machine

  it('answers a plan gate with the upgrade message, never a blank page', async () => {
    await page.goto(`${svc.base}/explore`);
    // Free may map the states by key (pages-first-user.test.ts); a county map needs shapes Free may not download.
    await openWithKey('variable=B19013_001E&dataset=acs1&vintage=2018&level=county&within=state:48', svc.keys.free);
    const alert = page.getByRole('alert').first();
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toMatch(/upgrade|plan/i);
    expect(await alert.getByRole('link').getAttribute('href')).toMatch(/\/dashboard\/billing\?plan=/);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'explore-04-plan-gate.png'), fullPage: false });
    expect(await allViolations(page)).toEqual([]); // the error state
  });
});
