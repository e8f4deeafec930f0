import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 35: the looking glass explains every CAEP, RISC and SSF event type of a SET, field by field.
let server: TestServer;
const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

describe('the looking glass and SETs', () => {
  it('explains each event of a SET this origin signed: meaning, reference, each field', async () => {
    const bearer = await ssfToken(server);
    const auth = { authorization: `Bearer ${bearer}` };
    const { stream_id } = (
      await exchange(server.url, '/ssf/streams', json({ events_requested: [`${CAEP}credential-change`] }, auth))
    ).body;
    const subject = { format: 'email', email: 'dave@example.com' };
    await exchange(server.url, '/ssf/subjects:add', json({ stream_id, subject }, auth));
    await exchange(
      server.url,
      '/ssf/events',
      json(
        {
          event_type: `${CAEP}credential-change`,
          subject,
          event: { credential_type: 'fido2-roaming', change_type: 'create', friendly_name: 'key' },
        },
        auth,
      ),
    );
    const sets = (await exchange(server.url, `/ssf/poll/${stream_id}`, json({ returnImmediately: true }, auth))).body
      .sets;
    const decoded = (await exchange(server.url, '/api/lookingglass/decode', json({ token: Object.values(sets)[0] })))
      .body;
    expect(decoded.signature.verified).toBe(true);
    expect(decoded.kind).toMatchObject({ typ: 'secevent+jwt' });
    expect(decoded.security_events).toEqual([
      {
        type: `${CAEP}credential-change`,
        name: 'credential-change',
        meaning: expect.stringMatching(/created, revoked, updated or deleted/),
        reference: 'OpenID CAEP 1.0',
        fields: [
          { name: 'credential_type', value: 'fido2-roaming', meaning: expect.any(String) },
          { name: 'change_type', value: 'create', meaning: 'create, revoke, update or delete' },
          { name: 'friendly_name', value: 'key', meaning: expect.any(String) },
        ],
      },
    ]);
  });
});
