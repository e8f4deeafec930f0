import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 31: recent runs, newest first, paged with a cursor and filtered by protocol, flow and status.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const get = (path: string) => exchange(server.url, path, {});
const run = async (protocol: string, flow: string) =>
  (await exchange(server.url, `/api/protocols/${protocol}/demo/${flow}`, json({}))).body.run_id as string;

describe('GET /api/runs', () => {
  it('lists runs newest first with their summary, pages with a cursor and filters', async () => {
    const ids = [
      await run('oauth2', 'client-credentials'),
      await run('oauth2', 'refresh-token'),
      await run('oauth2', 'client-credentials'),
    ];
    const first = await get('/api/runs?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.runs.map((r: any) => r.run_id)).toEqual([ids[2], ids[1]]);
    expect(first.body.runs[0]).toMatchObject({
      protocol: 'oauth2',
      flow: 'client-credentials',
      status: 'succeeded',
      started_at: expect.stringMatching(/Z$/),
      exchanges: expect.any(Number),
      duration_ms: expect.any(Number),
      links: { page: `/runs/${ids[2]}`, export: `/api/streams/run:${ids[2]}/export` },
    });
    expect(first.body.runs[0].exchanges).toBe((await get(`/api/runs/${ids[2]}`)).body.exchanges.length);
    const second = await get(`/api/runs?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.runs.map((r: any) => r.run_id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeUndefined();

    const filtered = await get('/api/runs?flow=refresh-token&status=succeeded');
    expect(filtered.body.runs.map((r: any) => r.run_id)).toEqual([ids[1]]);
    expect((await get('/api/runs?protocol=oidc')).body.runs).toEqual([]);
  });

  it('answers a foreign cursor or a bad filter with 400 invalid_request', async () => {
    for (const query of ['cursor=bm9wZQ', 'cursor=%25', 'status=lost', 'limit=0', 'limit=101', 'other=1']) {
      const response = await get(`/api/runs?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error).toBe('invalid_request');
    }
  });
});

describe('every run state is listed and filterable as it is (issue 45 item 30)', () => {
  it('a paused run lists as paused, a cancelled one as cancelled, and ?status= finds each', async () => {
    const stepped = (
      await exchange(server.url, '/api/protocols/oauth2/demo/client-credentials', json({ mode: 'step' }))
    ).body;
    expect(stepped.status).toBe('paused');
    const paused = await get('/api/runs?status=paused');
    expect(paused.status).toBe(200);
    expect(paused.body.runs.map((r: { run_id: string }) => r.run_id)).toContain(stepped.run_id);
    const cancelled = await exchange(
      server.url,
      `/api/runs/${stepped.run_id}/cancel`,
      json({}, { authorization: `Bearer ${stepped.run_token}` }),
    );
    expect(cancelled.body.status).toBe('cancelled');
    const listed = await get('/api/runs?status=cancelled');
    expect(listed.body.runs.find((r: { run_id: string }) => r.run_id === stepped.run_id)).toMatchObject({
      status: 'cancelled',
      finished_at: expect.any(String),
    });
    expect((await get('/api/runs?status=paused')).body.runs.map((r: { run_id: string }) => r.run_id)).not.toContain(
      stepped.run_id,
    );
  });
});
