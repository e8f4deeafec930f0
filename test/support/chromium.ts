import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startMainServer, type TestServer } from './main-server.ts';

/** Debian's chromium, which .ci/run installs: browser tests never skip in CI. */
export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable && process.env.CI === 'true')
  throw new Error(`${CHROMIUM} is missing: .ci/run installs it; browser tests never skip in CI`);

export const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A page of `base` that records console errors and requests to other origins. */
export async function openPage(browser: Browser, base: string, path: string, init?: (page: Page) => Promise<void>) {
  const page = await browser.newPage();
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    if (!r.url().startsWith(base) && !r.url().startsWith('data:')) foreign.push(r.url());
  });
  await init?.(page);
  await page.goto(base + path);
  return { page, errors, foreign };
}

/** axe-core's serious and critical violations of the page. */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => (window as any).axe.run(document, { resultTypes: ['violations'] }));
  return (result.violations as Array<{ id: string; impact: string; nodes: unknown[] }>)
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.nodes.length})`);
}

/**
 * One main server and one Chromium for a test file, started before its tests and closed after them
 * (neither starts where Chromium is missing, and the file's tests are skipped there, never in CI).
 */
export function useServerInChromium(env: Record<string, string> = {}): { server: TestServer; browser: Browser } {
  const shared = {} as { server: TestServer; browser: Browser };
  beforeAll(async () => {
    if (!chromiumAvailable) return;
    shared.server = await startMainServer({ env });
    shared.browser = await launchChromium();
  });
  afterAll(async () => {
    await shared.browser?.close();
    await shared.server?.close();
  });
  return shared;
}

/** A page whose browser offers WebMCP: the tools it registers are collected in `window.__tools`. */
export async function withModelContext(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const tools: any[] = [];
    (window as any).__tools = tools;
    Object.defineProperty(navigator, 'modelContext', {
      value: { registerTool: (t: any) => tools.push(t) },
      configurable: true,
    });
  });
}
