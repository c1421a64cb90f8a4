// Headless Chromium for the web-page tests: Debian's `chromium` driven by playwright-core (no
// browser download). A missing browser fails the tests with the command that installs it; it is
// never a silent skip. axe-core is evaluated in the page for accessibility checks.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from './paths.js';

const CANDIDATES = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p): p is string => !!p && fs.existsSync(p));
  if (!found) throw new Error('No Chromium found. Install it with `apt-get install -y chromium` (.ci/run does), or set CHROMIUM_PATH.');
  return found;
}

export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core (WCAG 2.1 A/AA rules) on the current page; returns serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await allViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** axe-core (WCAG 2.1 A/AA rules) on the current page; every violation, whatever its impact. */
export async function allViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, so the page's CSP (script-src 'self') does not apply.
  await page.evaluate(axeSource);
  const result = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })`,
  )) as { violations: AxeViolation[] };
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, html: n.html.slice(0, 200) })),
  }));
}

// Test runs write their screenshots under .cache (a test must not dirty the work tree);
// `npm run screenshots` points this at docs/screenshots to refresh the documented pictures.
export const SCREENSHOT_DIR = path.resolve(REPO_ROOT, process.env.SCREENSHOT_DIR ?? path.join('.cache', 'screenshots'));

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
