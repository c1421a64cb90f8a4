// Issue 34 §5 and issue 37 §5 on the pages, in headless Chromium against the real server and the
// test build, at desktop and phone width with axe on every state:
// - a profile whose figures are not loaded names, once and for the operator, the exact command
//   that loads them (the API's meta.fill_command);
// - a former place name (the ACS 2017 title "Austin-Round Rock, TX") opens the place with a note
//   saying so in names (the API's meta.former_name, not its key), in a profile's address and in
//   the explorer's "Within"; a former name another place bears ("Longview") offers both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { allViolations, launchBrowser, SCREENSHOT_DIR } from '../support/browser.js';
import { startLiveService, type LiveService } from '../support/live-service.js';
import { HEADLINE_VARIABLES } from '../../web/profile/layout.js';

let svc: LiveService;
let browser: Browser;

beforeAll(async () => {
  svc = await startLiveService();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

async function api<T>(p: string): Promise<T> {
  const r = await fetch(`${svc.base}${p}`, { headers: { 'X-API-Key': svc.keys.business } });
  expect(r.status, p).toBe(200);
  return (await r.json()) as T;
}

const WIDTHS = [
  { screen: 'desktop', width: 1280 },
  { screen: 'phone', width: 390 },
] as const;

describe.each(WIDTHS)('on a $screen ($width px)', { timeout: 120_000 }, ({ screen, width }) => {
  let page: Page;
  const errors: string[] = [];
  beforeAll(async () => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(() => page?.context().close());

  /** No axe violation, nothing wider than the screen, no script error; `picture`: a screenshot of `part` (or the screen). */
  async function check(name: string, picture?: string, part?: string) {
    expect(await allViolations(page), name).toEqual([]);
    const wide = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    expect(wide.page, `${name}: page ${wide.page} px wide on a ${wide.screen} px screen`).toBeLessThanOrEqual(wide.screen);
    expect(errors, 'script errors').toEqual([]);
    if (picture) {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const file = path.join(SCREENSHOT_DIR, `${picture}.png`);
      if (part) await page.locator(part).first().screenshot({ path: file });
      else await page.screenshot({ path: file });
    }
  }

  async function openProfile(words: string) {
    await page.goto(`${svc.base}/profile/${words}`);
    // The key is held by the page, not stored: every new page asks for it.
    await page.getByLabel('Your API key').fill(svc.keys.business);
    await page.getByRole('button', { name: 'Show profile' }).click();
  }

  it('names the command that loads the not-loaded figures once, for the operator', async () => {
    // ACS 5-year 2023 holds no state-level values in the test build: every headline figure is "not loaded".
    await openProfile('state:48?dataset=acs5&vintage=2023');
    await page.getByTestId('profile').waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), undefined, { timeout: 60_000 });
    const note = page.getByTestId('operator-note');
    await note.waitFor();
    await expect(page.getByTestId('operator-note').count()).resolves.toBe(1);
    // Closed until opened: addressed to the operator, not in the reader's way.
    expect(await note.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await check('operator-note-closed');
    await note.locator('summary').click();
    await check(
      'operator-note-open',
      screen === 'desktop' ? 'profile-31-operator-note' : 'profile-32-phone-operator-note',
      '[data-testid="operator-note"]',
    );
    // Exactly the API's commands for what the page shows (the headline figures beside the
    // nation, the distributions, the series), and none of the not-loaded cells goes without one.
    const shown = await page.getByTestId('fill-command').allTextContents();
    const headline = await api<{ meta: { fill_command?: string } }>(
      `/v1/compare?variables=${HEADLINE_VARIABLES.join(',')}&geo=${encodeURIComponent('state:48;nation:1')}&dataset=acs5&vintage=2023`,
    );
    expect(headline.meta.fill_command).toMatch(
      /^npm run etl -- build --online --datasets acs5 --vintages 2023 --levels state,nation --tables /,
    );
    expect(shown).toContain(headline.meta.fill_command);
    expect(new Set(shown).size).toBe(shown.length);
    for (const c of shown) expect(c).toMatch(/^npm run etl -- build --online --datasets acs5 /);
    // Cells still say "not loaded" where they are: the command is not repeated in them.
    const notLoaded = await page.locator('[data-testid^="section-"]').filter({ hasText: 'not loaded' }).count();
    expect(notLoaded).toBeGreaterThan(0);
    expect(await page.locator('main').textContent()).not.toMatch(/npm run etl[\s\S]*npm run etl[\s\S]*npm run etl[\s\S]*npm run etl/);
  });

  it('a profile whose figures are all loaded has no operator note', async () => {
    await openProfile('state:48?dataset=acs1&vintage=2018');
    await page.getByTestId('profile').waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), undefined, { timeout: 60_000 });
    const headline = await api<{ meta: { fill_command?: string }; data: { estimate_annotation: { code: string } | null }[] }>(
      `/v1/compare?variables=${HEADLINE_VARIABLES.join(',')}&geo=${encodeURIComponent('state:48;nation:1')}&dataset=acs1&vintage=2018`,
    );
    const anyNotLoaded = headline.data.some((c) => c.estimate_annotation?.code === 'no_data_loaded');
    // The note is there exactly when some answer of the page has a not-loaded cell.
    if (!anyNotLoaded) expect(headline.meta.fill_command).toBeUndefined();
    await page.waitForLoadState('networkidle');
    const commands = await page.getByTestId('fill-command').allTextContents();
    const series = await api<{ meta: { fill_command?: string } }>(
      `/v1/timeseries?variables=core_total_population,core_median_household_income,core_poverty_rate&geo=state:48&dataset=acs1&from=2005&to=2018`,
    );
    const dist = await api<{ meta: { fill_command?: string } }>(
      `/v1/data?variables=${encodeURIComponent('B01001*,B19001*')}&geo=state:48&dataset=acs1&vintage=2018`,
    );
    expect(commands.sort()).toEqual(
      [headline.meta.fill_command, series.meta.fill_command, dist.meta.fill_command].filter((c): c is string => !!c).sort(),
    );
    await check('profile-all-loaded');
  });

  it('a former name opens the place with a note: /profile/Austin-Round Rock, TX', async () => {
    await openProfile(encodeURIComponent('Austin-Round Rock, TX'));
    await page.getByTestId('profile').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('profile').getAttribute('data-geo')).toBe('metro:12420');
    expect(new URL(page.url()).pathname).toBe('/profile/metro:12420');
    // In names, not the key (issue 37 §8): the API's meta.former_name, worded by the page.
    await expect(page.getByTestId('name-note').textContent()).resolves.toBe(
      'Found by a former name: “Austin-Round Rock, TX” was this metro area’s name in ACS 2017; in 2024 it is “Austin-Round Rock-San Marcos, TX”.',
    );
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), undefined, { timeout: 60_000 });
    await check('profile-former-name', screen === 'phone' ? 'profile-33-phone-former-name' : undefined);
  });

  it('metro:Austin-Round Rock, the former title without its state, opens the metro too', async () => {
    await openProfile(encodeURIComponent('metro:Austin-Round Rock'));
    await page.getByTestId('profile').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('profile').getAttribute('data-geo')).toBe('metro:12420');
    const note = await page.getByTestId('name-note').textContent();
    expect(note).toContain('“Austin-Round Rock, TX” was this metro area’s name in ACS 2017');
    expect(note).not.toMatch(/metro:\d/);
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), undefined, { timeout: 60_000 });
    await check('profile-former-name-typed');
  });

  it('a former name another place bears (“Longview”) offers both places', async () => {
    await openProfile('Longview');
    await page.getByRole('heading', { name: 'Which place?' }).waitFor({ timeout: 60_000 });
    await expect(page.getByRole('status').textContent()).resolves.toContain('"Longview, WA" in ACS 2017');
    const links = await page.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(expect.arrayContaining(['/profile/metro:30980', '/profile/metro:31020']));
    await check('profile-former-name-ambiguous');
    await page.getByRole('link', { name: 'Longview-Kelso, WA' }).click();
    await page.getByLabel('Your API key').fill(svc.keys.business);
    await page.getByRole('button', { name: 'Show profile' }).click();
    await page.getByTestId('profile').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('profile').getAttribute('data-geo')).toBe('metro:31020');
  });

  it('the explorer’s Within finds the place by its former name and says so', async () => {
    await page.goto(`${svc.base}/explore?variable=B01003_001E&dataset=acs5&vintage=2023&level=state&geo=state%3A48`);
    await page.getByLabel('Your API key').fill(svc.keys.business);
    await page.getByRole('button', { name: 'Explore' }).click();
    await page.getByLabel(/^Within/).fill('Austin-Round Rock, TX');
    await page.getByRole('button', { name: 'Show' }).click();
    // The status read to a screen reader and the note on screen name the place, never by its key (issue 37 §8).
    await expect
      .poll(() => page.getByTestId('within-status').textContent(), { timeout: 30_000 })
      .toMatch(
        /^Found Austin-Round Rock-San Marcos, TX Metro Area, a metro area; the map shows its counties\. “Austin-Round Rock, TX” was/,
      );
    await expect(page.getByTestId('within-status').textContent()).resolves.not.toContain('metro:');
    await expect(page.getByTestId('within-note').textContent()).resolves.toBe(
      'Found by a former name: “Austin-Round Rock, TX” was this metro area’s name in ACS 2017; in 2023 it is “Austin-Round Rock-San Marcos, TX”.',
    );
    await check('explore-within-former-name', screen === 'desktop' ? 'explore-31-within-former-name' : undefined, '.place-picker');
  });

  it('the explorer’s Within on an earlier map: a later name says what the place was called then', async () => {
    await page.goto(`${svc.base}/explore?variable=B01003_001E&dataset=acs5&vintage=2017&level=state&geo=state%3A48`);
    await page.getByLabel('Your API key').fill(svc.keys.business);
    await page.getByRole('button', { name: 'Explore' }).click();
    await page.getByLabel(/^Within/).fill('Austin-Round Rock-San Marcos, TX');
    await page.getByRole('button', { name: 'Show' }).click();
    // Named as it was in 2017, the map's vintage.
    await expect
      .poll(() => page.getByTestId('within-status').textContent(), { timeout: 30_000 })
      .toMatch(/^Found Austin-Round Rock, TX Metro Area, a metro area; the map shows its counties\. /);
    await expect(page.getByTestId('within-status').textContent()).resolves.not.toContain('metro:');
    await expect(page.getByTestId('within-note').textContent()).resolves.toBe(
      'Found by a former name: “Austin-Round Rock-San Marcos, TX” is this metro area’s name from ACS 2018 on; in 2017 it was “Austin-Round Rock, TX”.',
    );
    await check('explore-within-later-name');
  });
});
