// Issue 37's defects as a new user meets them, in headless Chromium against the real server and
// the test build's data, each at desktop width and at a phone's (390 px): every state is checked
// with axe-core and must fit the screen (no page wider than the viewport).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { allViolations, launchBrowser, SCREENSHOT_DIR } from '../support/browser.js';
import { startLiveService, type LiveService } from '../support/live-service.js';
import { startService, type Service } from '../support/service.js';
import { freePort } from '../support/browser.js';
import { buildWeb } from '../../web/build.js';
import os from 'node:os';
import { accountUsage } from '../../src/verbs/account-usage.js';
import { authenticate } from '../../src/verbs/authenticate.js';
import { verbContext } from '../support/context.js';

let svc: LiveService;
let browser: Browser;
/** The development server as `npm start` runs it (no BASE_URL), on every address: reached at this machine's LAN address. */
let lan: (Service & { base: string }) | undefined;

/** This machine's first non-loopback IPv4 address (the LAN address another device would use). */
const lanAddress = () =>
  Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

beforeAll(async () => {
  svc = await startLiveService();
  browser = await launchBrowser();
  const address = lanAddress();
  if (address) {
    await buildWeb();
    const port = await freePort();
    const dev = await startService({ config: { PORT: port, DEV_IDP: true } });
    await dev.app.listen({ port, host: '0.0.0.0' });
    lan = { ...dev, base: `http://${address}:${port}` };
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await lan?.close();
});

const WIDTHS = [
  { screen: 'desktop', width: 1280 },
  { screen: 'phone', width: 390 },
] as const;

describe.each(WIDTHS)('pages on a $screen ($width px)', { timeout: 120_000 }, ({ screen, width }) => {
  let page: Page;
  const errors: string[] = [];
  beforeAll(async () => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(() => page?.context().close());

  /**
   * Every state the tests reach: no axe violation, nothing wider than the screen, no script error.
   * `picture`: the documented screenshot of this state (the screen's top, `npm run screenshots`).
   */
  async function check(name: string, picture?: string) {
    expect(await allViolations(page), name).toEqual([]);
    const wide = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    expect(wide.page, `${name}: page ${wide.page} px wide on a ${wide.screen} px screen`).toBeLessThanOrEqual(wide.screen);
    expect(errors, 'script errors').toEqual([]);
    if (picture) {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${picture}.png`) });
    }
  }

  async function signUp(email: string) {
    await page.goto(`${svc.base}/dashboard`);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${svc.base}/dashboard`);
  }

  it('a new Free account sees a states map with values one click from Getting started', async () => {
    await signUp(`first-map-${screen}@example.org`);
    await expect(page.getByTestId('plan-badge').textContent()).resolves.toBe('Free plan');
    await check('getting-started');
    // Action 1: the explorer link on Getting started.
    await page.getByRole('link', { name: 'explorer' }).click();
    await page.waitForURL(/\/explore/);
    await page.getByTestId('ranked').waitFor({ timeout: 60_000 });
    // A value on every state shape the data has (the states asked for by key, within Free's limits).
    const filled = await page
      .locator('svg.map path.shape')
      .evaluateAll((ps) => ps.filter((p) => !/no value/.test(p.getAttribute('aria-label') ?? '')).length);
    expect(filled).toBeGreaterThanOrEqual(50);
    // The gate says what the plan can do (by key) and what it cannot (the wildcard), with the plan that can.
    const note = page.getByTestId('map-by-keys');
    await expect(note.textContent()).resolves.toMatch(/asks for its 52 states one by one, by key/);
    expect(await note.getByRole('link').textContent()).toBe('See the Pro plan');
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await check('free-explorer', screen === 'desktop' ? 'explore-30-free-states' : undefined);
  });

  async function openWithKey(path: string, button: string) {
    await page.goto(`${svc.base}${path}`);
    await page.getByLabel('Your API key').fill(svc.keys.business);
    await page.getByRole('button', { name: button }).click();
  }

  it('a profile opened by name: each request once, the survey with the most figures, a true lead, which part is missing, names not keys', async () => {
    await page.goto(`${svc.base}/explore`); // a fresh page: the signed-in session of the test above is still on this context
    await page.context().clearCookies();
    const asked: string[] = [];
    const onRequest = (r: { url(): string }) => void (r.url().includes('/v1/') && asked.push(r.url()));
    page.on('request', onRequest);
    await openWithKey(`/profile/${encodeURIComponent('Travis County, TX')}`, 'Show profile');
    await page.getByTestId('profile').waitFor({ timeout: 60_000 });
    await page.getByTestId('children').waitFor({ timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    page.off('request', onRequest);
    // §7: every request once.
    expect(asked.length).toBeGreaterThan(5);
    expect(
      asked.filter((u, i) => asked.indexOf(u) !== i),
      'requests sent twice',
    ).toEqual([]);
    // §3: the selector shows each choice's count, and the profile opened on the largest.
    const options = await page.locator('#vintage-pick option').allTextContents();
    const counts = options.map((o) => Number(/— (\d+) of 36 figures/.exec(o)?.[1] ?? NaN));
    expect(counts.every((n) => Number.isInteger(n))).toBe(true);
    const chosen = await page.locator('#vintage-pick').evaluate((s: HTMLSelectElement) => s.selectedOptions[0]!.textContent!);
    expect(Number(/— (\d+) of/.exec(chosen)![1])).toBe(Math.max(...counts));
    // The lead states what is true: as many values as the place's column shows, and how many have an MOE.
    const lead = (await page.locator('p.lead').textContent())!;
    expect(lead).not.toContain('Every figure has its 90% margin of error');
    const shown = await page.locator('table.figures td[data-geo="county:48453"] [data-testid="estimate"]').allTextContents();
    const values = shown.filter((t) => t !== '—').length;
    expect(lead).toContain(`${values} of 36 figures have a value`);
    // §2: only the MOE of the population is missing, and the page says so (not "the value is absent").
    const population = page.locator('tr[data-variable="core_total_population"] td[data-geo="county:48453"]');
    expect(await population.getByTestId('estimate').textContent()).not.toBe('—');
    const reason = (await population.getByTestId('reason').textContent())!;
    expect(reason).toMatch(/^No margin of error: missing in the source file/);
    expect(reason).not.toMatch(/value is absent/i);
    // Texas's column says "not loaded" where that is the reason.
    const texas = (await page.locator('tr[data-variable="core_total_population"] td[data-geo="state:48"]').textContent())!;
    expect(texas).toContain('not loaded');
    // §8: significance marks in words, no codes; the metro by its name, not its key.
    for (const mark of await page.getByTestId('sig').allTextContents())
      expect(mark).not.toMatch(/_|\((no data loaded|missing in source|controlled)\)/);
    const places = (await page.getByTestId('section-places').textContent())!;
    expect(places).not.toMatch(/metro:\d+/);
    expect(places).toContain('Austin-Round Rock-San Marcos');
    // §13: children links carry no unused ?vintage=.
    const hrefs = await page.locator('[data-testid="children"] ul a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(hrefs.length).toBeGreaterThan(0);
    expect(hrefs.filter((h) => h.includes('vintage='))).toEqual([]);
    // §4: a series with no value at all is said once, not drawn as rows of reasons.
    await page.getByTestId('trends-loaded').waitFor({ timeout: 60_000 });
    const emptyNotes = await page.getByTestId('trends-empty').count();
    const rowsOfReasons = await page
      .locator('[data-testid="series-table"] tbody tr')
      .evaluateAll((rows) => rows.filter((r) => r.textContent!.includes('not loaded')).length);
    expect(emptyNotes + rowsOfReasons).toBeGreaterThan(0);
    expect(emptyNotes).toBeLessThanOrEqual(1);
    await check('profile-travis', screen === 'phone' ? 'profile-30-phone-travis' : undefined);
  });

  it('a 2018 profile charts the years that exist up to 2018, none after', async () => {
    await page.goto(`${svc.base}/profile/state:48?dataset=acs1&vintage=2018`);
    // The key form, or the profile when the page still has credentials: whichever is drawn first.
    await page.waitForSelector('#api-key, [data-testid="profile"]');
    if (await page.getByLabel('Your API key').count()) {
      await page.getByLabel('Your API key').fill(svc.keys.business);
      await page.getByRole('button', { name: 'Show profile' }).click();
    }
    await page.getByTestId('trends-loaded').waitFor({ timeout: 60_000 });
    const years = (await page.locator('[data-testid="series-table"] tbody th').allTextContents()).map(Number);
    expect(years.length).toBeGreaterThan(0);
    expect(Math.max(...years)).toBe(2018);
    expect(Math.min(...years)).toBe(2005);
    await check('profile-texas-2018');
  });

  it('a Free key opens a profile for a fraction of its month: the figures are counted (/v1/coverage, 1 unit), not fetched over every year', async () => {
    await page.goto(`${svc.base}/explore`);
    await page.context().clearCookies();
    // The account endpoints take a dashboard sign-in: the same verb answers for the key's account.
    const usedUnits = async () => {
      const ctx = verbContext(svc.stores, { plan: null });
      const caller = (await authenticate({ ctx, input: { apiKey: svc.keys.free } })).data;
      return ((await accountUsage({ ctx: { ...ctx, caller }, input: {} })).data as { units: { used: number } }).units.used;
    };
    const asked: string[] = [];
    const onRequest = (r: { url(): string }) => void (r.url().includes('/v1/') && asked.push(new URL(r.url()).pathname));
    const before = await usedUnits();
    page.on('request', onRequest);
    await page.goto(`${svc.base}/profile/state:48`);
    await page.getByLabel('Your API key').fill(svc.keys.free);
    await page.getByRole('button', { name: 'Show profile' }).click();
    await page.getByTestId('trends-loaded').waitFor({ timeout: 60_000 });
    await page.getByTestId('children').waitFor({ timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    page.off('request', onRequest);
    const spent = (await usedUnits()) - before;
    // The selector still shows each choice's count, from the one count request.
    expect(asked.filter((p) => p === '/v1/coverage')).toHaveLength(1);
    const options = await page.locator('#vintage-pick option').allTextContents();
    expect(options.filter((o) => /— \d+ of 36 figures/.test(o)).length).toBeGreaterThan(1);
    // Counting Texas's 36 figures over ACS 1-year's 16 newest years with /v1/timeseries cost 144
    // units alone (36 variables × 4), 262 for the whole profile; now 119 (1,000 is Free's month).
    expect(spent).toBeLessThan(144);
    await check('profile-free-texas');
  });

  it('a percentage MOE is in pp in the explorer, as in profiles', async () => {
    await openWithKey('/explore?variable=core_poverty_rate&dataset=acs1&vintage=2018&level=state&geo=state:48', 'Explore');
    await page.getByTestId('ranked').waitFor({ timeout: 60_000 });
    const moes = await page.locator('[data-testid="ranked"] tbody td.num').allTextContents();
    const withPlusMinus = moes.filter((t) => t.startsWith('±'));
    expect(withPlusMinus.length).toBeGreaterThan(10);
    for (const m of withPlusMinus) expect(m).toMatch(/^± [\d.]+ pp$/);
    await check('explore-percent-moe');
  });

  it('signs in from the explorer at a LAN address and comes back to the same view', async () => {
    // A machine without a LAN address cannot show this; it fails rather than skip silently.
    expect(lan, 'this machine has no non-loopback IPv4 address').toBeDefined();
    await page.context().clearCookies();
    const view = '/explore?variable=B01003_001E&dataset=acs1&vintage=2017&level=state&within=us&geo=state%3A48';
    await page.goto(`${lan!.base}${view}`);
    const link = page.getByRole('link', { name: 'sign in' });
    const next = new URL((await link.getAttribute('href'))!, lan!.base).searchParams.get('next')!;
    expect(new URL(next, lan!.base).pathname).toBe('/explore');
    for (const [k, v] of new URL(view, lan!.base).searchParams) expect(new URL(next, lan!.base).searchParams.get(k), k).toBe(v);
    await check('explore-key-form');
    await link.click();
    await page.getByLabel('E-mail address').fill(`lan-${screen}@example.org`);
    await page.getByRole('button', { name: 'Continue' }).click();
    // Back on the LAN address, on the explorer, with the view the reader left.
    await page.waitForURL((u) => u.pathname === '/explore' && u.host === new URL(lan!.base).host);
    const back = new URL(page.url());
    for (const [k, v] of new URL(view, lan!.base).searchParams) expect(back.searchParams.get(k), k).toBe(v);
    await page.getByTestId('ranked').waitFor({ timeout: 60_000 });
    await expect(page.locator('.who .email').textContent()).resolves.toContain(`lan-${screen}@example.org`);
  });

  it('opens docs/profile.md’s example /profile/Austin-Round Rock and finds it in the explorer’s Within', async () => {
    await page.context().clearCookies();
    await openWithKey(`/profile/${encodeURIComponent('Austin-Round Rock')}`, 'Show profile');
    await page.getByTestId('profile').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('profile').getAttribute('data-geo')).toBe('metro:12420');
    expect(new URL(page.url()).pathname).toBe('/profile/metro:12420');
    await page.goto(`${svc.base}/explore?variable=B01003_001E&dataset=acs5&vintage=2023&level=state&geo=state%3A48`);
    await page.getByLabel('Your API key').fill(svc.keys.business);
    await page.getByRole('button', { name: 'Explore' }).click();
    await page.getByLabel(/^Within/).fill('Austin-Round Rock');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForFunction((q) => location.search.includes(q), 'within=metro%3A12420', { timeout: 30_000 });
    await expect(page.getByTestId('within-status').textContent()).resolves.toMatch(
      /^Found Austin-Round Rock-San Marcos, TX Metro Area, a metro area;/,
    );
    await check('explore-within-austin');
  });

  it('/docs: an accessible API reference that loads in under a second', async () => {
    const started = Date.now();
    await page.goto(`${svc.base}/docs`, { waitUntil: 'load' });
    const ms = Date.now() - started;
    expect(ms, `/docs loaded in ${ms} ms`).toBeLessThan(1000);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Census Data Service API reference');
    await expect(page.locator('article.operation').count()).resolves.toBeGreaterThan(20);
    console.log(`/docs (${screen}): loaded in ${ms} ms`);
    await check('docs', `docs-reference-${screen}`);
  });

  it('an empty tract map says why, with the API’s gaps', async () => {
    await page.context().clearCookies();
    await openWithKey(
      '/explore?variable=B01003_001E&dataset=acs5&vintage=2018&level=tract&within=county%3A48453&geo=county%3A48453',
      'Explore',
    );
    const gaps = page.getByTestId('map-gaps');
    await gaps.waitFor({ timeout: 60_000 });
    // The API's own words: Texas has no 2010-definition tract file in this build.
    expect(await gaps.textContent()).toMatch(/missing .*TX/);
    await check('explore-empty-tract-map');
  });
});
