import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  openPage,
  seriousA11yViolations,
  SHOTS,
  useServerInChromium,
  withModelContext,
} from '../support/chromium.ts';
import { form, json } from '../support/main-server.ts';

const shared = useServerInChromium();

const open = (path: string, init?: (page: Page) => Promise<void>) =>
  openPage(shared.browser, shared.server.url, path, init);

describe.skipIf(!chromiumAvailable)('pages in Chromium', () => {
  it('home: the catalog, a live palette search, no third-party requests, no serious accessibility violations', async () => {
    const { page, errors, foreign } = await open('/');
    expect(await page.locator('h1').textContent()).toBe('Identity protocols you can run');
    expect(await page.locator('table a').count()).toBeGreaterThanOrEqual(7);
    await page.fill('#q', 'pkce');
    await page.waitForSelector('#palette-results li a');
    expect(await page.locator('#palette-results').textContent()).toMatch(/PKCE/);
    await page.screenshot({ path: `${SHOTS}home.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it('protocol page, then a flow page with its SVG sequence diagram', async () => {
    const { page, errors } = await open('/protocol/oidc');
    await page.screenshot({ path: `${SHOTS}protocol.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.click('text=Authorization code with ID token and UserInfo');
    await page.waitForSelector('figure svg');
    expect(await page.locator('figure svg text').first().textContent()).toBeTruthy();
    await page.screenshot({ path: `${SHOTS}flow.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('runs the authorization code + PKCE flow with ID token and shows exchanges and the decoded ID token as they stream in', async () => {
    const { page, errors } = await open('/protocol/oidc/flow/authorization-code-id-token');
    await page.click('button:has-text("Run this flow")');
    await page.waitForSelector('#run-output [role=status]:has-text("succeeded")', { timeout: 20_000 });
    const text = (await page.locator('#run-output').textContent())!;
    expect(text).toContain('Token request');
    expect(text).toContain('UserInfo request');
    expect(text).toContain('Decoded id_token');
    expect(text).toContain('"alg": "RS256"');
    expect(text).toContain('code_challenge_method=S256');
    await page.screenshot({ path: `${SHOTS}run.png`, fullPage: true });
    await page.click('text=Open the full run');
    await page.waitForSelector('h1:has-text("Run of oidc/authorization-code-id-token")');
    // The run as a timeline: a diagram of the real exchanges, rows that open to both sides, tokens decoded, curl.
    expect(await page.locator('figure svg[aria-label^="Exchanges of"]').count()).toBe(1);
    const rows = page.locator('details.exchange');
    expect(await rows.count()).toBeGreaterThan(3);
    const token = page.locator('details.exchange', { hasText: 'Token request' }).first();
    await token.locator('summary').first().click();
    expect(await token.locator('.sides section').count()).toBe(2);
    expect(await token.locator('.badge').first().textContent()).toBe('200');
    expect(await token.locator('section.token', { hasText: 'id_token' }).textContent()).toContain('"alg": "RS256"');
    await token.locator('details.curl summary').click();
    expect(await token.locator('details.curl pre').textContent()).toMatch(/^curl -i -X POST '/);
    expect(await token.locator('details.curl button:has-text("Copy")').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}run-page.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    // One click from a token to the looking glass (claims explained; the run keeps no signature).
    await token
      .locator('section.token', { hasText: 'id_token' })
      .locator('button:has-text("Explain in the looking glass")')
      .click();
    await page.waitForSelector('h2:has-text("Claims")');
    expect(await page.locator('table').first().textContent()).toContain('auth_time');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('every content page shows rendered markdown (no literal backticks, no unfilled placeholders)', async () => {
    const { protocols } = (await (await fetch(`${shared.server.url}/api/protocols`)).json()) as {
      protocols: Array<{ id: string }>;
    };
    const paths: string[] = [];
    for (const { id } of protocols) {
      paths.push(`/protocol/${id}`);
      const { flows } = (await (await fetch(`${shared.server.url}/api/protocols/${id}/flows`)).json()) as {
        flows: Array<{ id: string }>;
      };
      paths.push(...flows.map((f) => `/protocol/${id}/flow/${f.id}`));
    }
    const page = await shared.browser.newPage();
    for (const path of paths) {
      await page.goto(shared.server.url + path);
      // What a person sees, code blocks aside (they may show backticks on purpose).
      const text = await page.evaluate(() => {
        const main = document.querySelector('main')!.cloneNode(true) as HTMLElement;
        main.querySelectorAll('pre').forEach((p) => p.remove());
        return main.innerText;
      });
      expect(text, path).not.toMatch(/`[^`\s][^`]*`/);
      expect(text, path).not.toContain('{base}');
    }
    await page.close();
  });

  it('the run page, a flow page with options and a decoded token are axe-clean in the dark scheme too', async () => {
    const ran = (await (
      await fetch(`${shared.server.url}/api/protocols/oauth2/demo/client-credentials`, json({}))
    ).json()) as any;
    const reg = (await (
      await fetch(`${shared.server.url}/agentauth/identity`, json({ type: 'anonymous' }))
    ).json()) as any;
    const context = await shared.browser.newContext({ colorScheme: 'dark' });
    const page = await context.newPage();
    for (const path of [`/runs/${ran.run_id}`, '/protocol/oauth2/flow/client-credentials', '/spec']) {
      await page.goto(shared.server.url + path);
      if (await page.locator('details.exchange').count())
        await page.locator('details.exchange summary').first().click();
      expect(await seriousA11yViolations(page), path).toEqual([]);
    }
    await page.goto(`${shared.server.url}/looking-glass`);
    await page.fill('#token', reg.identity_assertion);
    await page.click('button:has-text("Decode")');
    await page.waitForSelector('h2:has-text("Claims")');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}looking-glass-dark.png`, fullPage: true });
    await context.close();
  });

  it("the flow page's option controls produce the chosen run", async () => {
    const { page, errors } = await open('/protocol/oauth2/flow/client-credentials');
    await page.selectOption('#opt-client_auth', 'private_key_jwt');
    await page.selectOption('#opt-alg', 'EdDSA');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.click('button:has-text("Run this flow")');
    await page.waitForSelector('#run-output [role=status]:has-text("succeeded")', { timeout: 20_000 });
    const rows = page.locator('#run-output details.exchange');
    expect(await rows.count()).toBeGreaterThan(1);
    expect(await page.locator('#run-output').textContent()).toContain('Token request (private_key_jwt)');
    expect(await rows.locator('.badge').first().textContent()).toMatch(/^\d{3}$/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('decodes a token on the looking glass, posted: the token never lands in the URL', async () => {
    const reg = (await (
      await fetch(`${shared.server.url}/agentauth/identity`, json({ type: 'anonymous' }))
    ).json()) as any;
    const { page } = await open('/looking-glass');
    expect(await page.locator('form.inline button').count()).toBe(3); // sample tokens of this origin's issuers
    const methods: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/looking-glass')) methods.push(r.method());
    });
    await page.fill('#token', reg.identity_assertion);
    await page.click('button:has-text("Decode")');
    await page.waitForSelector('h2:has-text("Claims")');
    expect(methods).toContain('POST');
    expect(page.url()).not.toContain(reg.identity_assertion.slice(0, 20));
    expect(page.url()).toBe(`${shared.server.url}/looking-glass`);
    expect(await page.locator('table').textContent()).toContain('RFC 7519 §4.1.4');
    expect(await page.locator('a:has-text("RFC 7519 §4.1.4")').first().getAttribute('href')).toBe(
      'https://www.rfc-editor.org/rfc/rfc7519.html#section-4.1.4',
    );
    expect(await page.locator('.jwt .jwt-h').textContent()).toBe(reg.identity_assertion.split('.')[0]);
    expect(await page.locator('h2:has-text("Payload") + pre').textContent()).toContain('"sub"');
    expect(await page.locator('.notice.ok').textContent()).toMatch(/verified/);
    await page.screenshot({ path: `${SHOTS}looking-glass.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.close();
  });

  it('completes an agent claim: the agent over HTTP, the person approving in the browser', async () => {
    const reg = (await (
      await fetch(`${shared.server.url}/agentauth/identity`, json({ type: 'anonymous' }))
    ).json()) as any;
    const claim = (await (
      await fetch(
        `${shared.server.url}/agentauth/identity/claim`,
        json({ claim_token: reg.claim_token, email: 'person@example.com' }),
      )
    ).json()) as any;
    const poll = async () =>
      (await (
        await fetch(
          `${shared.server.url}/agentauth/token`,
          form({ grant_type: 'urn:portico:agent-auth:grant-type:claim', claim_token: reg.claim_token }),
        )
      ).json()) as any;
    expect((await poll()).error).toBe('authorization_pending');
    const { page } = await open('/agentauth/claim');
    await page.fill('#user_code', claim.user_code);
    await page.screenshot({ path: `${SHOTS}claim.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.click('button:has-text("Approve")');
    await page.waitForSelector('h1:has-text("Agent approved")');
    await page.screenshot({ path: `${SHOTS}claim-approved.png`, fullPage: true });
    shared.server.clock.advance(5_000);
    const granted = await poll();
    expect(granted).toMatchObject({ scope: 'agent:read agent:write', claimed: true });
    await page.close();
  });

  it('opens a conformance page', async () => {
    const { page } = await open('/spec/rfc7523/rfc7523-003');
    expect(await page.locator('h1').textContent()).toBe('rfc7523-003');
    expect(await page.locator('main').textContent()).toContain('Not evaluated for this build');
    expect(await page.locator('meta[name=robots]').getAttribute('content')).toBe('noindex');
    await page.screenshot({ path: `${SHOTS}conformance.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.close();
  });

  it("WebMCP: with navigator.modelContext exactly the specification's four tools are registered and answer; without it nothing is", async () => {
    const { page, errors } = await open('/', withModelContext);
    await page.waitForFunction(() => (window as any).__tools.length === 4);
    // The step tools wait for the service index; give it time to answer before counting again.
    await page.waitForLoadState('networkidle');
    const names = await page.evaluate(() => (window as any).__tools.map((t: any) => t.name).sort());
    expect(names).toEqual(['decode_token', 'list_protocol_flows', 'open_protocol_page', 'search_protocols']);
    const reg = (await (
      await fetch(`${shared.server.url}/agentauth/identity`, json({ type: 'anonymous' }))
    ).json()) as any;
    const answers = await page.evaluate(async (token) => {
      const t = Object.fromEntries((window as any).__tools.map((x: any) => [x.name, x]));
      const search = await t.search_protocols.execute({ query: 'dpop' });
      const flows = await t.list_protocol_flows.execute({ protocolId: 'oauth2' });
      const decoded = await t.decode_token.execute({ token });
      return {
        dpop: search.results.some((r: any) => r.id === 'concept:dpop'),
        flows: flows.flows.length,
        verified: decoded.signature.verified,
      };
    }, reg.identity_assertion);
    expect(answers).toEqual({ dpop: true, flows: 7, verified: true });
    await page.evaluate(() =>
      (window as any).__tools.find((x: any) => x.name === 'open_protocol_page').execute({ protocolId: 'oidc' }),
    );
    await page.waitForURL(`${shared.server.url}/protocol/oidc`);
    expect(errors).toEqual([]);
    await page.close();

    const plain = await open('/');
    await plain.page.waitForLoadState('networkidle');
    expect(await plain.page.evaluate(() => 'modelContext' in navigator)).toBe(false);
    expect(plain.errors).toEqual([]);
    await plain.page.close();
  });
});
