import { describe, expect, it } from 'vitest';
import { chromiumAvailable, openPage, useServerInChromium, withModelContext } from '../support/chromium.ts';

// Issue 45 item 3: the step tools are WebMCP tools only where MCP_USER_ENDPOINT=true serves them.
const shared = useServerInChromium({ MCP_USER_ENDPOINT: 'true' });

describe.skipIf(!chromiumAvailable)('WebMCP with the step-tool extension on', () => {
  it('registers the four tools and the step tools, and a stepped run goes to its end', async () => {
    const { page, errors } = await openPage(shared.browser, shared.server.url, '/', withModelContext);
    await page.waitForFunction(() => (window as any).__tools.length === 8);
    const names = await page.evaluate(() => (window as any).__tools.map((t: any) => t.name).sort());
    expect(names).toEqual([
      'cancel_run',
      'continue_run',
      'decode_token',
      'list_protocol_flows',
      'open_protocol_page',
      'search_protocols',
      'start_stepped_flow',
      'step_run',
    ]);
    const stepped = await page.evaluate(async () => {
      const t = Object.fromEntries((window as any).__tools.map((x: any) => [x.name, x]));
      const started = await t.start_stepped_flow.execute({ protocolId: 'oauth2', flowId: 'client-credentials' });
      const one = { runId: started.run_id, runToken: started.run_token };
      const next = await t.step_run.execute(one);
      const done = await t.continue_run.execute(one);
      return [started.status, next.next_request.method, done.status];
    });
    expect(stepped).toEqual(['paused', 'POST', 'succeeded']);
    expect(errors).toEqual([]);
    await page.close();
  });
});
