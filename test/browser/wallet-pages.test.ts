import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWalletServer, type TestWallet } from '../support/wallet-server.ts';

// Issue 17: the wallet's pages for people, in Chromium, accessible in light and dark.
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: .ci/run installs it; browser tests never skip in CI`);
const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let wallet: TestWallet;
let browser: Browser;
beforeAll(async () => {
  if (!available) return;
  mkdirSync(SHOTS, { recursive: true });
  wallet = await startWalletServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
});
afterAll(async () => {
  await browser?.close();
  await wallet?.close();
});

async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => (window as any).axe.run(document, { resultTypes: ['violations'] }));
  return (result.violations as Array<{ id: string; impact: string; nodes: unknown[] }>).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
}

describe.skipIf(!available)('wallet pages in Chromium', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`the wallet page and the consent page are axe-clean (${scheme}), keep one session per browser and need no JavaScript`, async () => {
      const context = await browser.newContext({ colorScheme: scheme });
      const page = await context.newPage();
      const foreign: string[] = [];
      page.on('request', (r) => { if (!r.url().startsWith(wallet.url)) foreign.push(r.url()); });
      await page.goto(`${wallet.url}/`);
      expect(await page.locator('h1').textContent()).toBe('Wallet');
      expect(await page.locator('script').count()).toBe(0); // server-rendered: nothing needs JavaScript
      const sessionCell = page.locator('table tr').filter({ hasText: 'Session' }).locator('code').first();
      const session = await sessionCell.textContent();
      expect(session).toMatch(/^ws_/);
      await page.reload();
      expect(await sessionCell.textContent()).toBe(session);
      await page.screenshot({ path: `${SHOTS}wallet-${scheme}.png`, fullPage: true });
      expect(await violations(page)).toEqual([]);
      const consent = await page.goto(`${wallet.url}/consent/unknown-request`);
      expect(consent?.status()).toBe(404);
      expect(await page.locator('h1').textContent()).toBe('No such request');
      await page.screenshot({ path: `${SHOTS}wallet-consent-${scheme}.png`, fullPage: true });
      expect(await violations(page)).toEqual([]);
      expect(foreign).toEqual([]);
      await context.close();
    });
  }
});
