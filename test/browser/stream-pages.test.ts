import { describe, expect, it } from 'vitest';
import { chromiumAvailable, openPage, seriousA11yViolations, SHOTS, useServerInChromium } from '../support/chromium.ts';
import { exchange, json } from '../support/main-server.ts';

// Issue 31: the runs list, the comparison of two runs and a stream's time travel, in Chromium.
const shared = useServerInChromium();

const run = async (options: Record<string, string> = {}) =>
  (await exchange(shared.server.url, '/api/protocols/oauth2/demo/client-credentials', json(options))).body
    .run_id as string;

describe.skipIf(!chromiumAvailable)('debugging pages in Chromium', () => {
  it('the run page compares with another run: the differing field is marked; the page is axe-clean', async () => {
    const a = await run();
    const b = await run({ scope: 'api:read api:write' });
    const { page, errors } = await openPage(shared.browser, shared.server.url, `/runs/${a}`);
    await page.fill('#compare-with', b);
    await Promise.all([page.waitForURL(`**/runs/${a}/diff/${b}`), page.click('form[action$="/diff"] button')]);
    expect(await page.locator('h1').textContent()).toBe('Two runs compared');
    expect(await page.locator('td strong', { hasText: '/request/body/scope' }).count()).toBe(1);
    expect(await page.locator('main .notice').first().textContent()).toContain('Different');
    await page.screenshot({ path: `${SHOTS}run-diff.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a stream's page shows each event's state; selecting one shows the state and context at that point", async () => {
    const id = await run();
    const { page, errors } = await openPage(shared.browser, shared.server.url, `/runs/${id}`);
    const href = await page.locator('.exchange .hint a').first().getAttribute('href');
    expect(href).toBe(`/streams/run:${id}?at=2`);
    await page.goto(shared.server.url + href);
    expect(await page.locator('h2').first().textContent()).toBe('After event 2: run.exchange_recorded');
    expect(await page.locator('table tbody tr').count()).toBeGreaterThanOrEqual(3);
    await Promise.all([page.waitForURL(/at=1$/), page.getByRole('link', { name: '1', exact: true }).click()]);
    expect(await page.locator('h2').first().textContent()).toBe('After event 1: run.started');
    expect(await page.locator('pre').nth(1).textContent()).toContain('"protocol": "oauth2"');
    await page.screenshot({ path: `${SHOTS}stream.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('the runs list shows recent runs newest first, each linked, and the home page links the latest', async () => {
    const newest = await run();
    const { page } = await openPage(shared.browser, shared.server.url, '/runs');
    expect(await page.locator('table tbody tr a').first().textContent()).toBe(newest);
    expect(await seriousA11yViolations(page)).toEqual([]);
    const home = await openPage(shared.browser, shared.server.url, '/');
    expect(await home.page.locator(`a[href="/runs/${newest}"]`).count()).toBe(1);
  });
});
