import { describe, expect, it } from 'vitest';
import { chromiumAvailable, openPage, seriousA11yViolations, SHOTS, useServerInChromium } from '../support/chromium.ts';

// Issue 33: step mode from the pages, with JavaScript off: the flow page starts a stepped run, the run page
// shows the next request, and its forms step (with an edited field), continue or cancel.
const shared = useServerInChromium();

describe.skipIf(!chromiumAvailable)('step mode in Chromium, without JavaScript', () => {
  it("steps a client-credentials run from its page, edits the scope, and shows the server's real error", async () => {
    const { page, errors } = await openPage(
      shared.browser,
      shared.server.url,
      '/protocol/oauth2/flow/client-credentials',
      async (p) => {
        await p.context().route('**/*.js', (route) => route.abort());
      },
    );
    await page.getByLabel('Step through it: pause before every request').check();
    await page.getByRole('button', { name: 'Run this flow' }).click();
    await page.waitForLoadState();
    expect(page.url()).toMatch(/\/runs\/[A-Za-z0-9_-]+$/);
    expect(await page.getByRole('heading', { name: 'Next request' }).count()).toBe(1);
    expect(await page.locator('pre').first().textContent()).toContain('GET /oauth2/demo/clients');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Step: send this request' }).click();
    await page.waitForLoadState();
    expect(await page.locator('pre').first().textContent()).toContain('POST /oauth2/token');
    await page.locator('input[name="form.scope"]').fill('nonsense:x');
    await page.screenshot({ path: `${SHOTS}step-mode.png`, fullPage: true });
    await page.getByRole('button', { name: 'Step: send this request' }).click();
    await page.waitForLoadState();
    expect(await page.locator('main .notice').first().textContent()).toMatch(/failed/);
    expect(await page.content()).toContain('invalid_scope');
    expect(await page.getByRole('heading', { name: 'Next request' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('with JavaScript on, the form still goes to the stepped run; continue runs to the end; a second browser without the cookie is refused', async () => {
    const { page } = await openPage(shared.browser, shared.server.url, '/protocol/oauth2/flow/client-credentials');
    await page.getByLabel('Step through it: pause before every request').check();
    await page.locator('form[action$="/run"] button[type="submit"]').click();
    await page.waitForLoadState();
    expect(page.url()).toMatch(/\/runs\/[A-Za-z0-9_-]+$/);
    const runUrl = page.url();
    const other = await shared.browser.newContext();
    const stranger = await other.newPage();
    await stranger.goto(runUrl);
    await stranger.getByRole('button', { name: 'Continue to the end' }).click();
    expect(await stranger.content()).toContain('invalid_token');
    await other.close();
    await page.getByRole('button', { name: 'Continue to the end' }).click();
    await page.waitForLoadState();
    expect(await page.locator('main .notice').first().textContent()).toContain('succeeded');
  });
});
