import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../support/wallet-server.ts';

// Issue 17: the wallet's pages for people, in Chromium, accessible in light and dark.
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI === 'true')
  throw new Error(`${CHROMIUM} is missing: .ci/run installs it; browser tests never skip in CI`);
const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let wallet: TestWallet;
let main: TestServer;
let browser: Browser;
beforeAll(async () => {
  if (!available) return;
  mkdirSync(SHOTS, { recursive: true });
  main = await startMainServer();
  const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
  const verifierCa = await (await fetch(`${main.url}/oid4vp/ca.pem`)).text();
  wallet = await startWalletServer({
    clock: main.clock,
    env: { BASE_URL: main.url, WALLET_MDOC_IACA_ROOT_PEM: iaca, WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM: verifierCa },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await wallet?.close();
  await main?.close();
});

async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => (window as any).axe.run(document, { resultTypes: ['violations'] }));
  return (result.violations as Array<{ id: string; impact: string; nodes: unknown[] }>)
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.nodes.length})`);
}

describe.skipIf(!available)('wallet pages in Chromium', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`the wallet page and the consent page are axe-clean (${scheme}), keep one session per browser and need no JavaScript`, async () => {
      const context = await browser.newContext({ colorScheme: scheme });
      const page = await context.newPage();
      const foreign: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(wallet.url)) foreign.push(r.url());
      });
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

  for (const scheme of ['light', 'dark'] as const) {
    it(`a verifier's request (${scheme}): /authorize auto-issues, the consent page names the verifier and each claim, is axe-clean, and the person withholds one claim`, async () => {
      const query = {
        credentials: [
          {
            id: 'degree',
            format: 'dc+sd-jwt',
            claims: [
              { id: 'f', path: ['family_name'] },
              { id: 'd', path: ['degree'] },
            ],
            claim_sets: [['f', 'd'], ['d']],
          },
        ],
      };
      const created = (
        await exchange(main.url, '/oid4vp/request/create', json({ client_id_prefix: 'x509_hash', dcql_query: query }))
      ).body;
      const context = await browser.newContext({ colorScheme: scheme });
      const page = await context.newPage();
      await page.goto(`${wallet.url}/authorize?${new URL(created.authorization_request_uri).searchParams}`);
      expect(new URL(page.url()).pathname).toMatch(/^\/consent\/req_/);
      expect(await page.locator('main').textContent()).toContain(created.client_id);
      const boxes = page.locator('input[type=checkbox][name=claim]');
      expect(await boxes.count()).toBe(2);
      expect(await page.locator('script').count()).toBe(0); // a plain form post: nothing needs JavaScript
      await page.screenshot({ path: `${SHOTS}wallet-consent-request-${scheme}.png`, fullPage: true });
      expect(await violations(page)).toEqual([]);
      await page.getByLabel(/family_name/).uncheck();
      await page.getByRole('button', { name: 'Present' }).click();
      await page.waitForLoadState();
      const doc = (await exchange(main.url, `/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;
      expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
      expect(Object.keys(doc.presentations.degree[0].claims)).toEqual(['degree']);
      expect(await violations(page)).toEqual([]);
      await context.close();
    });
  }
});
