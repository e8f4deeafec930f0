import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExport, refold } from '../../../services/streams/import.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 33, step mode: a run that pauses before every request, stepped, edited, continued, cancelled or
// left to expire, each a fact of its stream; its controls need the run token.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

type Json = Record<string, any>;
const start = async (protocol: string, flow: string, options: Json = {}) => {
  const res = await exchange(server.url, `/api/protocols/${protocol}/demo/${flow}`, json({ mode: 'step', ...options }));
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(202);
  return res.body as Json;
};
const control = (id: string, action: string, token: string | undefined, body: Json = {}) =>
  exchange(
    server.url,
    `/api/runs/${id}/${action}`,
    json(body, token === undefined ? {} : { authorization: `Bearer ${token}` }),
  );
const eventsOf = async (id: string) =>
  ((await exchange(server.url, `/api/streams/run:${id}/export`, {})).body.events as Json[]).map((e) => e.type);

describe('step mode', () => {
  it('client credentials, one request at a time: each pause shows the next request; the run ends as it would', async () => {
    const started = await start('oauth2', 'client-credentials');
    expect(started).toMatchObject({ status: 'paused', mode: 'step', exchanges: [] });
    expect(Buffer.from(started.run_token, 'base64url')).toHaveLength(16);
    expect(started.next_request).toMatchObject({ method: 'GET', url: `${server.url}/oauth2/demo/clients` });
    // The capability is shown once: the run as read back never holds it.
    const read = await exchange(server.url, `/api/runs/${started.run_id}`, {});
    expect(JSON.stringify(read.body)).not.toContain(started.run_token);
    expect(read.body.next_request).toEqual(started.next_request);

    let run: Json = started;
    const requests: string[] = [];
    while (run.status === 'paused') {
      requests.push(`${run.next_request.method} ${new URL(run.next_request.url).pathname}`);
      const stepped = await control(run.run_id, 'step', started.run_token);
      expect(stepped.status).toBe(200);
      run = stepped.body;
    }
    expect(run.status).toBe('succeeded');
    expect(requests).toEqual(['GET /oauth2/demo/clients', 'POST /oauth2/token', 'GET /oauth2/resource']);
    expect(run.exchanges.map((x: Json) => x.response.status)).toEqual([200, 200, 200]);
    // The token request's pause shows the step's explanation and keeps the client's secret out of the log.
    const events = await eventsOf(run.run_id);
    expect(events).toEqual([
      'run.started',
      ...requests.flatMap(() => ['run.paused', 'run.stepped', 'run.exchange_recorded']),
      'run.finished',
    ]);
    const file = (await exchange(server.url, `/api/streams/run:${run.run_id}/export`, {})).body;
    // Replayed from the export, the stream folds to the same states (what npm run replay shows).
    expect(refold(readExport(file))).toMatchObject({ same_machine: true, final_state: 'succeeded' });
    expect((file.events as Json[]).map((e) => e.state).slice(0, 3)).toEqual(['running', 'paused', 'running']);
    const exported = JSON.stringify(file);
    expect(exported).not.toContain('machine-client-secret');
    expect(exported).toContain('"explanation":"grant_type=client_credentials');
  });

  it("authorization code + PKCE: an edited code_verifier gets the server's real error, and the capture says what changed", async () => {
    const started = await start('oauth2', 'authorization-code-pkce');
    let run: Json = started;
    while (run.status === 'paused' && !(run.next_request.url.endsWith('/token') && run.next_request.method === 'POST'))
      run = (await control(run.run_id, 'step', started.run_token)).body;
    expect(run.next_request.body).toMatchObject({ grant_type: 'authorization_code' });
    const wrong = 'a'.repeat(43);
    const edited = await control(run.run_id, 'step', started.run_token, {
      edit: { form: { code_verifier: wrong, state: null }, headers: { 'x-learner': 'yes' } },
    });
    expect(edited.status).toBe(200);
    const token = edited.body.exchanges.at(-1);
    expect(token.response.status).toBe(400);
    expect(token.response.body.error).toBe('invalid_grant');
    expect(token).toMatchObject({
      edited: true,
      edits: ['headers.x-learner: added', 'form.code_verifier: replaced', 'form.state: absent'],
    });
    expect(token.request.headers['x-learner']).toBe('yes');
    expect(edited.body.status).toBe('failed');
    expect(await eventsOf(run.run_id)).toContain('run.stepped');

    // Issue 45 item 31: the run page marks the edited exchange and says what changed.
    const page = await (await fetch(`${server.url}/runs/${run.run_id}`)).text();
    expect(page).toContain('<span class="badge edited">edited</span>');
    expect(page).toContain('<code>form.code_verifier: replaced</code>');
    const twin = await (
      await fetch(`${server.url}/runs/${run.run_id}`, { headers: { accept: 'text/markdown' } })
    ).text();
    expect(twin).toMatch(/### \d+\. .* \(edited\)/);
    // Compared with an unedited run, the edited field and the field present in one run only are
    // differences, not volatile values; the server's answer differs too.
    const plain = (await exchange(server.url, '/api/protocols/oauth2/demo/authorization-code-pkce', json({}))).body;
    const diff = (await exchange(server.url, `/api/runs/${run.run_id}/diff/${plain.run_id}`, {})).body as Json;
    const tokenPair = (diff.exchanges as Json[]).find(
      (x) => x.presence === 'both' && x.differences.some((d: Json) => d.pointer === '/response/status'),
    )!;
    const differing = tokenPair.differences.map((d: Json) => d.pointer);
    expect(differing).toEqual(expect.arrayContaining(['/request/body/code_verifier', '/request/headers/x-learner']));
    expect(tokenPair.volatile).not.toContain('/request/body/code_verifier');
    // The code differs by nature, as it does between any two runs.
    expect(tokenPair.volatile).toContain('/request/body/code');
    expect(diff.same).toBe(false);
  });

  it('a bad edit is refused with 400 and the run keeps waiting; continue runs to the end', async () => {
    const started = await start('oauth2', 'client-credentials');
    for (const edit of [
      { form: { grant_type: 'x' } },
      { nope: {} },
      { headers: { 'bad name': 'x' } },
      { query: { a: 1 } },
    ]) {
      const refused = await control(started.run_id, 'step', started.run_token, { edit });
      expect(refused.status, JSON.stringify(edit)).toBe(400);
      expect(refused.body.error).toBe('invalid_request');
    }
    expect((await exchange(server.url, `/api/runs/${started.run_id}`, {})).body.status).toBe('paused');
    const continued = await control(started.run_id, 'continue', started.run_token);
    expect([continued.status, continued.body.status]).toEqual([200, 'succeeded']);
    const events = await eventsOf(started.run_id);
    expect(events.filter((e) => e === 'run.paused')).toHaveLength(1);
    expect(events).toContain('run.continued');
  });

  it('cancel ends the run as cancelled; any control then answers 409 naming its state', async () => {
    const started = await start('oidc', 'authorization-code-id-token');
    const cancelled = await control(started.run_id, 'cancel', started.run_token);
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
    for (const action of ['step', 'continue', 'cancel']) {
      const late = await control(started.run_id, action, started.run_token);
      expect([late.status, late.body.error]).toEqual([409, 'invalid_request']);
      expect(late.body.error_description).toContain('cancelled');
    }
    expect(await eventsOf(started.run_id)).toEqual(['run.started', 'run.paused', 'run.cancelled']);
  });

  it('a run left paused for 10 minutes ends as expired (the clock injected)', async () => {
    const started = await start('oauth2', 'client-credentials');
    server.clock.advance(10 * 60_000 - 1);
    expect((await exchange(server.url, `/api/runs/${started.run_id}`, {})).body.status).toBe('paused');
    server.clock.advance(1);
    expect((await exchange(server.url, `/api/runs/${started.run_id}`, {})).body.status).toBe('expired');
    const late = await control(started.run_id, 'step', started.run_token);
    expect([late.status, late.body.error_description]).toEqual([409, 'The run is expired, not paused']);
    expect(await eventsOf(started.run_id)).toEqual(['run.started', 'run.paused', 'run.expired']);
  });

  it("the controls need this run's token: none, another run's, or a run without one is 401 invalid_token", async () => {
    const one = await start('oauth2', 'client-credentials');
    const two = await start('oauth2', 'client-credentials');
    const plain = await exchange(server.url, '/api/protocols/oauth2/demo/client-credentials', json({}));
    expect(plain.status).toBe(201);
    for (const [id, token] of [
      [one.run_id, undefined],
      [one.run_id, two.run_token],
      [one.run_id, 'x'.repeat(22)],
      [plain.body.run_id, one.run_token],
    ] as const) {
      const refused = await control(id, 'step', token);
      expect([refused.status, refused.body.error]).toEqual([401, 'invalid_token']);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    }
    expect((await control('no-such-run', 'step', one.run_token)).status).toBe(404);
    expect((await exchange(server.url, `/api/runs/${one.run_id}`, {})).body.status).toBe('paused');
  });
});

describe('every pause explains itself (issue 45 items 15 and 31)', () => {
  for (const [protocol, flow] of [
    ['oauth2', 'client-credentials'],
    ['oauth2', 'authorization-code-pkce'],
    ['oidc', 'authorization-code-id-token'],
  ])
    it(`${protocol}/${flow}: the 202 and every pause carry an explanation, the runner's own requests included`, async () => {
      let run = await start(protocol, flow);
      const token = run.run_token as string;
      let pauses = 0;
      while (run.status === 'paused') {
        pauses += 1;
        expect(typeof run.explanation, `${run.next_request.method} ${run.next_request.url}`).toBe('string');
        expect(run.explanation.length).toBeGreaterThan(20);
        run = (await control(run.run_id, 'step', token)).body;
      }
      expect(pauses).toBeGreaterThan(1);
    });
});
