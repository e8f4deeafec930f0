import { describe, expect, it } from 'vitest';
import { EXTENSIONS_ON, form, json, type TestServer } from '../../support/main-server.ts';
import { useTwoInstancesOnPostgres } from '../../support/postgres-instances.ts';
import { postgresAvailable } from '../../support/postgres.ts';

// Issue 36: registered clients are events of the shared log, so every instance knows them at once,
// and the per-address registration limit is counted by both together.
const instances = useTwoInstancesOnPostgres(EXTENSIONS_ON);

const register = async (at: TestServer, metadata: unknown) => {
  const res = await fetch(`${at.url}/oauth2/register`, json(metadata));
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const clientToken = (at: TestServer, c: Record<string, any>) =>
  fetch(
    `${at.url}/oauth2/token`,
    form(
      { grant_type: 'client_credentials' },
      { authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}` },
    ),
  );

describe.skipIf(!postgresAvailable)('client registration on several instances', () => {
  it('a client registered at one instance gets tokens and is managed at the other; deleted there, it is gone at both', async () => {
    const [a, b] = instances;
    const { body: c } = await register(a, { grant_types: ['client_credentials'], scope: 'api:read' });
    expect((await clientToken(b, c)).status).toBe(200);
    const path = new URL(c.registration_client_uri).pathname;
    const read = await fetch(`${b.url}${path}`, {
      headers: { authorization: `Bearer ${c.registration_access_token}` },
    });
    expect(read.status).toBe(200);
    const { registration_access_token: next } = (await read.json()) as Record<string, string>;
    // The token rotated at b is the only one either instance takes now.
    const stale = await fetch(`${a.url}${path}`, {
      headers: { authorization: `Bearer ${c.registration_access_token}` },
    });
    expect(stale.status).toBe(401);
    const removed = await fetch(`${a.url}${path}`, { method: 'DELETE', headers: { authorization: `Bearer ${next}` } });
    expect(removed.status).toBe(204);
    expect((await clientToken(b, c)).status).toBe(401);
    expect((await clientToken(a, c)).status).toBe(401);
  });

  it('counts one address’s registrations on both instances together', async () => {
    const [a, b] = instances;
    const statuses: number[] = [];
    // The first test registered one; 19 more fit in the hour, alternating instances, then none.
    for (let i = 0; i < 20; i++)
      statuses.push((await register(i % 2 ? b : a, { grant_types: ['client_credentials'] })).status);
    expect(statuses.slice(0, 19).every((s) => s === 201)).toBe(true);
    expect(statuses[19]).toBe(429);
    expect((await register(a, { grant_types: ['client_credentials'] })).status).toBe(429);
  });
});
