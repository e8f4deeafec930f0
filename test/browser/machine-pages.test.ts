import { describe, expect, it } from 'vitest';
import { MACHINES_BY_STREAM_PREFIX } from '../../machines/index.ts';
import { machineDefinition } from '../../services/machines/definition.ts';
import { chromiumAvailable, openPage, seriousA11yViolations, SHOTS, useServerInChromium } from '../support/chromium.ts';

// Issue 32: every machine drawn on the server (Graphviz), each SVG holding every state name.
const shared = useServerInChromium();

describe.skipIf(!chromiumAvailable)('machine pages in Chromium', () => {
  it('every machine page draws every state in its SVG; its SCXML parses as XML', async () => {
    const { page, errors } = await openPage(shared.browser, shared.server.url, '/machines');
    expect(await page.locator('table tbody tr').count()).toBe(Object.keys(MACHINES_BY_STREAM_PREFIX).length);
    expect(await seriousA11yViolations(page)).toEqual([]);
    for (const machine of Object.values(MACHINES_BY_STREAM_PREFIX)) {
      await page.goto(`${shared.server.url}/machines/${machine.id}`);
      const drawn = await page.locator('figure svg g.node title').allTextContents();
      for (const state of Object.keys(machineDefinition(machine).states))
        expect(drawn, `${machine.id}: ${state}`).toContain(state);
      const parsed = await page.evaluate(async (id) => {
        const text = await (await fetch(`/api/machines/${id}?format=scxml`)).text();
        const doc = new DOMParser().parseFromString(text, 'application/xml');
        return {
          error: doc.getElementsByTagName('parsererror').length,
          states: [...doc.documentElement.children].map((e) => e.getAttribute('id')),
        };
      }, machine.id);
      expect(parsed.error, machine.id).toBe(0);
      expect(parsed.states).toEqual(Object.keys(machineDefinition(machine).states));
    }
    expect(errors).toEqual([]);
  });

  it('highlights the current state and is axe-clean', async () => {
    const { page } = await openPage(shared.browser, shared.server.url, '/machines/issuance?state=token_issued');
    const highlighted = page.locator('g.node', { has: page.locator('title', { hasText: /^token_issued$/ }) });
    expect(await highlighted.locator('[stroke-width="3"]').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}machine.png`, fullPage: true });
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
});
