import { describe, expect, it } from 'vitest';
import { useTwoInstancesOnPostgres } from '../../support/postgres-instances.ts';
import { postgresAvailable } from '../../support/postgres.ts';
import { expectScimError, scimClient, scimToken, USER } from '../../support/scim.ts';

// Issue 48: two instances on one PostgreSQL serve one SCIM tenant: versions and unique names hold across them.
const instances = useTwoInstancesOnPostgres();

describe.skipIf(!postgresAvailable)('SCIM on several instances', () => {
  it('patches at one a user created at the other with the right If-Match, and refuses a stale one', async () => {
    const [a, b] = instances;
    const atA = scimClient(a.url, await scimToken(a));
    const atB = scimClient(b.url, await scimToken(b));
    const user = await atA.createUser('shared.user');
    expect((await atB.get(`/Users/${user.id}`)).body.userName).toBe('shared.user');
    const patched = await atB.patch(`/Users/${user.id}`, [{ op: 'replace', path: 'title', value: 'B' }], {
      'if-match': 'W/"1"',
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.headers.get('etag')).toBe('W/"2"');
    expectScimError(
      await atA.patch(`/Users/${user.id}`, [{ op: 'replace', path: 'title', value: 'A' }], { 'if-match': 'W/"1"' }),
      412,
    );
    expect((await atA.get(`/Users/${user.id}`)).body.title).toBe('B');
    // The demo data was seeded once, whichever instance the tenant met first.
    expect((await atB.get('/Users?filter=userName%20eq%20%22avery.lee%22')).body.totalResults).toBe(1);
  });

  it('gives a userName to one user only, when both instances are asked at once', async () => {
    const [a, b] = instances;
    const clients = [scimClient(a.url, await scimToken(a)), scimClient(b.url, await scimToken(b))];
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        clients[i % 2].post('/Users', { schemas: [USER], userName: i % 2 ? 'RACE' : 'race' }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const refused of answers.filter((r) => r.status === 409)) expect(refused.body.scimType).toBe('uniqueness');
  });
});
