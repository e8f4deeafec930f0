import { describe, expect, it } from 'vitest';
import { exchange, json } from '../support/main-server.ts';
import { chromiumAvailable, openPage, seriousA11yViolations, SHOTS, useServerInChromium } from '../support/chromium.ts';

// Issue 33: a run against your own server, on its page: while it waits, where to sign in; then each check.
// The target here is the same origin's OAuth server, reached through the guard's loopback test hook.
const shared = useServerInChromium({ OUTBOUND_ALLOW_LOOPBACK: 'true' });

describe.skipIf(!chromiumAvailable)('a targeted run in Chromium', () => {
  it('shows where to sign in, and after the person came back, every check with its rule', async () => {
    const base = shared.server.url;
    const started = await exchange(
      base,
      '/api/protocols/oauth2/demo/authorization-code-pkce',
      json({
        target: {
          issuer: `${base}/oauth2`,
          client_id: 'demo-app',
          client_secret: 'demo-app-secret',
          scope: 'api:read',
        },
      }),
    );
    expect(started.body.status).toBe('awaiting_user');
    // A targeted run is private: the browser opens it with its run_token, which becomes the run's cookie.
    const { page, errors } = await openPage(shared.browser, base, `/runs/${started.body.run_id}`);
    expect(await page.getByRole('heading', { name: 'Sign in at the target' }).count()).toBe(0);
    await page.getByLabel('run_token').fill(started.body.run_token);
    await page.getByRole('button', { name: 'Open the run' }).click();
    await page.waitForURL(`${base}/runs/${started.body.run_id}`);
    expect(await page.getByRole('heading', { name: 'Sign in at the target' }).count()).toBe(1);
    expect(await seriousA11yViolations(page)).toEqual([]);
    // The person follows the link, signs in at the target's pages, consents, and lands back on the run.
    await page.getByRole('link', { name: 'open the authorization URL' }).click();
    await page.getByLabel('Demo user').selectOption('alice');
    await page.getByLabel('Password').fill('alice-demo-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${base}/runs/${started.body.run_id}`);
    for (let i = 0; i < 50 && !(await page.content()).includes('Status: succeeded'); i++) await page.reload();
    expect(await page.locator('main .notice').first().textContent()).toContain('succeeded');
    const rows = await page.locator('table').filter({ hasText: 'Verdict' }).locator('tbody tr').allTextContents();
    expect(rows.map((r) => r.split(/(passed|failed)/)[0])).toEqual([
      'issuer match',
      'PKCE advertised',
      'state echoed',
      'iss parameter',
      'token response',
      'PKCE honoured',
    ]);
    expect(rows.every((r) => r.includes('passed'))).toBe(true);
    await page.screenshot({ path: `${SHOTS}target-run.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
