import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACHINES_BY_STREAM_PREFIX } from '../../../machines/index.ts';
import { machineDefinition } from '../../../services/machines/definition.ts';
import { machineVersion } from '../../../services/streams/machine-version.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 32: every machine published as data, derived from the machine object itself.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const get = (path: string) => exchange(server.url, path, {});
const text = async (path: string) => {
  const res = await fetch(server.url + path);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
};
const machines = Object.entries(MACHINES_BY_STREAM_PREFIX);

describe('GET /api/machines', () => {
  it('lists every machine with its stream prefix, states, events and the version stream exports name', async () => {
    const listed = (await get('/api/machines')).body.machines;
    expect(listed.map((m: any) => m.stream_prefix).sort()).toEqual(machines.map(([prefix]) => prefix).sort());
    for (const [prefix, machine] of machines) {
      const entry = listed.find((m: any) => m.stream_prefix === prefix);
      expect(entry).toMatchObject({ id: machine.id, version: machineVersion(machine) });
      const states = Object.keys(machine.root.states);
      // A machine without child states (context only) is published as one state, `active`.
      expect(entry.states).toEqual(states.length ? states : ['active']);
    }
    const run = (await exchange(server.url, '/api/protocols/oauth2/demo/client-credentials', json({}))).body.run_id;
    const exported = (await get(`/api/streams/run:${run}/export`)).body;
    expect(listed.find((m: any) => m.id === exported.machine.id).version).toBe(exported.machine.version);
  });

  it('serves each definition as the machine itself gives it, and every path leads where it says', async () => {
    for (const [, machine] of machines) {
      const served = (await get(`/api/machines/${machine.id}`)).body;
      expect(served).toEqual(JSON.parse(JSON.stringify(machineDefinition(machine))));
      const { paths } = (await get(`/api/machines/${machine.id}/paths`)).body;
      expect(paths[served.initial]).toEqual([]);
      for (const [target, steps] of Object.entries<Array<{ event: string; target: string; guard?: string }>>(paths)) {
        // Walk the definition: each step is a transition of the state reached so far (or of the root).
        let at = served.initial;
        for (const step of steps) {
          const candidates = [...served.states[at].on, ...served.on].filter(
            (t: any) => t.event === step.event && t.target === step.target && (t.guard ?? undefined) === step.guard,
          );
          expect(candidates.length, `${machine.id}: ${at} --${step.event}-->`).toBeGreaterThan(0);
          at = step.target;
        }
        expect(at).toBe(target);
      }
    }
  });

  it('gives SCXML and Mermaid of the same states and transitions', async () => {
    const scxml = await text('/api/machines/agent?format=scxml');
    expect(scxml.type).toBe('application/scxml+xml; charset=utf-8');
    expect(scxml.body).toContain(
      '<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="agent" initial="unregistered">',
    );
    expect(scxml.body).toContain('<final id="revoked">');
    expect(scxml.body).toContain('<transition event="agent.claim_polled" target="claimed" cond="pollGrants"/>');
    const mermaid = await text('/api/machines/agent?format=mermaid');
    expect(mermaid.body.split('\n').slice(0, 2)).toEqual(['stateDiagram-v2', '  [*] --> unregistered']);
    expect(mermaid.body).toContain('  claiming --> claimed : agent.claim_polled [pollGrants]');
    expect(mermaid.body).toContain('  revoked --> [*]');
  });

  it('answers an unknown machine 404 and an unknown format 400, in the error contract', async () => {
    expect((await get('/api/machines/nope')).body.error).toBe('not_found');
    expect((await get('/api/machines/nope/paths')).status).toBe(404);
    const bad = await get('/api/machines/agent?format=png');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');
    expect((await text('/machines/nope')).status).toBe(404);
  });
});

describe('GET /machines/{id}', () => {
  it('links each rule the transitions cite to the transitions that implement it', async () => {
    const page = await text('/machines/refreshFamily');
    expect(page.status).toBe(200);
    const rules = page.body.slice(page.body.indexOf('Rules and their transitions'));
    expect(rules).toMatch(
      /RFC 9700 §4\.14\.2<\/td>\s*<td>.*href="#t-active-refresh\.reused-revoked[^"]*">active --refresh\.reused--&gt; revoked<\/a>/s,
    );
    expect(page.body).toContain('id="state-active"');
    const markdown = await fetch(`${server.url}/machines/refreshFamily`, { headers: { accept: 'text/markdown' } });
    expect(await markdown.text()).toMatch(
      /\| RFC 7009 §2\.1 \| \[active --refresh\.revoked--\\?> revoked\]\(#t-active-refresh\.revoked-revoked/,
    );
  });

  // Issue 45 item 16: every transition is an anchor, and every rule's link lands on one, on every machine page.
  it('every transition row is an anchor and every rule link resolves, on every machine page', async () => {
    const listed = (await get('/api/machines')).body.machines as Array<{ id: string }>;
    for (const { id } of listed) {
      const page = (await text(`/machines/${id}`)).body;
      const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
      const rows = [...page.matchAll(/<tr id="(t-[^"]+)">/g)].map((m) => m[1]);
      expect(new Set(rows).size, id).toBe(rows.length);
      const definition = (await get(`/api/machines/${id}`)).body as {
        states: Record<string, { on: unknown[] }>;
        on: unknown[];
      };
      const transitions = Object.values(definition.states).reduce((n, s) => n + s.on.length, 0) + definition.on.length;
      expect(rows.length, id).toBe(transitions);
      const start = page.indexOf('Rules and their transitions');
      if (start < 0) continue;
      for (const [, anchor] of page.slice(start).matchAll(/href="#([^"]+)"/g))
        expect(ids, `${id} #${anchor}`).toContain(anchor);
    }
  });
});
