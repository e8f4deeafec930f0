import { describe, expect, it } from 'vitest';
import { exchange, json } from '../support/main-server.ts';
import { chromiumAvailable, openPage, useServerInChromium } from '../support/chromium.ts';

// Issue 45 item 32: no page is wider than the window at 1280 px and at 390 px: tables wrap their cells,
// drawings scale, and nothing overlaps the page's edge (the diff page, a receiver, a machine, a run).
const shared = useServerInChromium();

/** How far the page's content reaches past the window's right edge, in CSS pixels (0: it fits). */
const overflowOf = (page: import('playwright-core').Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    let widest = document.documentElement.scrollWidth - width;
    // A wide element inside a scrolling box (a code block) is fine; one that pushes the page is not.
    for (const el of Array.from(document.querySelectorAll('main *'))) {
      const box = (el as HTMLElement).getBoundingClientRect();
      const scroller = (el as HTMLElement).closest('pre, figure, .table-scroll');
      if (!scroller && box.right - width > widest) widest = box.right - width;
    }
    return Math.max(0, Math.round(widest));
  });

/** What reaches furthest past the window, to say in a failure. */
const widestElement = (page: import('playwright-core').Page) =>
  page.evaluate(() => {
    let found = '';
    let right = document.documentElement.clientWidth;
    for (const el of Array.from(document.querySelectorAll('main *'))) {
      const box = (el as HTMLElement).getBoundingClientRect();
      if (!(el as HTMLElement).closest('pre, figure, .table-scroll') && box.right > right) {
        right = box.right;
        found = `${el.tagName.toLowerCase()}${el.className ? `.${el.className}` : ''} "${(el.textContent ?? '').slice(0, 40)}"`;
      }
    }
    return found;
  });

describe.skipIf(!chromiumAvailable)('page layouts at 1280 px and 390 px', () => {
  it('the diff page, a receiver page, a machine page, a run page and the looking glass fit both widths', async () => {
    const base = shared.server.url;
    const run = (body: Record<string, string>) =>
      exchange(base, '/api/protocols/oauth2/demo/client-credentials', json(body)).then((r) => r.body.run_id as string);
    const a = await run({});
    const b = await run({ scope: 'api:read api:write' });
    const receiver = (await exchange(base, '/ssf/receivers', json({ audience: 'machine-client' }))).body;
    const paths = [
      `/runs/${a}/diff/${b}`,
      `/runs/${a}`,
      `/ssf/receivers/${receiver.receiver_id}`,
      '/machines/flowRun',
      '/machines/issuance',
      '/looking-glass',
      '/runs',
    ];
    const overflowing: string[] = [];
    for (const width of [1280, 390]) {
      for (const path of paths) {
        const { page } = await openPage(shared.browser, base, path);
        await page.setViewportSize({ width, height: 900 });
        const over = await overflowOf(page);
        if (over > 0) overflowing.push(`${width}px ${path}: ${over}px too wide (${await widestElement(page)})`);
        await page.close();
      }
    }
    expect(overflowing).toEqual([]);
  });

  // Issue 45 item 32: the labels Graphviz places in a machine's drawing never cover one another.
  it('no two labels of any machine drawing overlap', async () => {
    const machines = (await exchange(shared.server.url, '/api/machines', {})).body.machines as Array<{ id: string }>;
    const overlapping: string[] = [];
    for (const { id } of machines) {
      const { page } = await openPage(shared.browser, shared.server.url, `/machines/${id}`);
      const found = await page.evaluate(() => {
        const boxes = Array.from(document.querySelectorAll('svg text')).map((t) => {
          const box = (t as SVGGraphicsElement).getBoundingClientRect();
          return { text: t.textContent ?? '', left: box.left, right: box.right, top: box.top, bottom: box.bottom };
        });
        const out: string[] = [];
        // Overlap by more than a pixel either way: text boxes include their glyphs' side bearings.
        for (let i = 0; i < boxes.length; i++)
          for (let j = i + 1; j < boxes.length; j++) {
            const [a, b] = [boxes[i]!, boxes[j]!];
            const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (x > 1 && y > 1) out.push(`"${a.text}" / "${b.text}"`);
          }
        return out;
      });
      overlapping.push(...found.map((f) => `${id}: ${f}`));
      await page.close();
    }
    expect(overlapping).toEqual([]);
  });
});
