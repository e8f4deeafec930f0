import { describe, expect, it } from 'vitest';
import { chromiumAvailable, openPage, seriousA11yViolations, SHOTS, useServerInChromium } from '../support/chromium.ts';
import { exchange, json } from '../support/main-server.ts';
import { holderKey, issueFromOurIssuer, presentSdJwt } from '../support/holder.ts';

// Issue 47: the DC API page in Chromium. No platform wallet runs here: navigator.credentials.get is a
// stub that records the exact argument the page passes and answers what a wallet would.
const shared = useServerInChromium();

const degree = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };

describe.skipIf(!chromiumAvailable)('the Digital Credentials API page in Chromium', () => {
  it('passes the exact digital argument, posts the answer with its origin, and shows the verdict; axe-clean', async () => {
    const { server, browser } = shared;
    const nowS = Math.floor(server.clock.now() / 1000);
    const holder = await holderKey();
    const sdJwt = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS)) as string;
    const created = (
      await exchange(server.url, '/oid4vp/request/create', json({ response_mode: 'dc_api', dcql_query: degree }))
    ).body;
    const origin = new URL(server.url).origin;
    const vp = await presentSdJwt(sdJwt, holder, {
      clientId: `origin:${origin}`,
      nonce: created.nonce,
      responseUri: '',
      nowS,
    });
    const answer = { protocol: 'openid4vp-v1-unsigned', data: { vp_token: { degree: [vp] } } };
    const { page, errors } = await openPage(browser, server.url, new URL(created.dc_api_page).pathname, async (p) => {
      await p.addInitScript((stubAnswer) => {
        (window as any).DigitalCredential = class {};
        (window as any).__asked = [];
        Object.defineProperty(navigator, 'credentials', {
          configurable: true,
          value: {
            get: async (options: unknown) => {
              (window as any).__asked.push(JSON.parse(JSON.stringify(options)));
              return stubAnswer;
            },
          },
        });
      }, answer);
    });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Present a credential' }).click();
    await page.getByText("The verifier's verdict: verified").waitFor();
    const asked = await page.evaluate(() => (window as any).__asked);
    expect(asked).toEqual([{ digital: created.digital, mediation: 'required' }]);
    const doc = (await exchange(server.url, new URL(created.result_uri).pathname, { method: 'GET' })).body;
    expect(doc).toMatchObject({ status: 'verified', origin });
    await page.screenshot({ path: `${SHOTS}dc-api-page.png`, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('without the API the page says why and still shows the request; axe-clean', async () => {
    const { server, browser } = shared;
    const created = (
      await exchange(server.url, '/oid4vp/request/create', json({ response_mode: 'dc_api.jwt', dcql_query: degree }))
    ).body;
    // Debian's Chromium 156 exposes DigitalCredential on a secure origin: the test takes it away.
    const { page, errors } = await openPage(browser, server.url, new URL(created.dc_api_page).pathname, async (p) => {
      await p.addInitScript(() => {
        Object.defineProperty(window, 'DigitalCredential', { value: undefined, configurable: true });
      });
    });
    await page.getByText('This browser has no Digital Credentials API').waitFor();
    expect(await page.getByRole('button', { name: 'Present a credential' }).isHidden()).toBe(true);
    expect(await page.locator('pre').first().textContent()).toContain('openid4vp-v1-signed');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
