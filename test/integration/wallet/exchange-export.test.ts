import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExport, refold } from '../../../services/streams/import.ts';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 31: the wallet exports its own exchanges, for the owning session only.
let main: TestServer;
let wallet: TestWallet;
beforeAll(async () => {
  main = await startMainServer();
  const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
  wallet = await startWalletServer({ clock: main.clock, env: { BASE_URL: main.url, WALLET_MDOC_IACA_ROOT_PEM: iaca } });
});
afterAll(async () => {
  await wallet.close();
  await main.close();
});

const call = async (path: string, session?: string, body?: unknown) => {
  const res = await fetch(`${wallet.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...(session ? { 'x-wallet-session': session } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
};

describe('GET {wallet}/api/exchanges/{id}/export', () => {
  it('exports an exchange to the session that made it; another session, none, or a guess is 404', async () => {
    const session = (await call('/api/session')).headers.get('x-wallet-session')!;
    const other = (await call('/api/session')).headers.get('x-wallet-session')!;
    const issued = await call('/api/issue', session, { credential_configuration_id: 'UniversityDegreeCredential' });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const { id, stream, export: path } = issued.body._exchange;
    expect(stream).toBe(`wallet-exchange:${id}`);
    const own = await call(`/${path}`, session);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ format: 'portico-stream/1', stream, kind: 'wallet-exchange' });
    expect(own.body.events[0].type).toBe('exchange.started');
    expect(refold(readExport(own.body))).toMatchObject({ same_machine: true, final_state: own.body.final_state });
    expect(JSON.stringify(own.body)).not.toContain(session);
    for (const [who, reader] of [
      ['another session', other],
      ['no session', undefined],
    ] as const) {
      const refused = await call(`/${path}`, reader);
      expect(refused.status, who).toBe(404);
      expect(refused.body.error).toBe('not_found');
    }
    expect((await call('/api/exchanges/guessed-id/export', session)).status).toBe(404);
  });

  it('the wallet exchange, the issuance and the presentation name each other by stream id', async () => {
    const session = (await call('/api/session')).headers.get('x-wallet-session')!;
    const issued = await call('/api/issue', session, { credential_configuration_id: 'UniversityDegreeCredential' });
    const exchange = issued.body._exchange.stream as string;
    const walletSide = await call(`/${issued.body._exchange.export}`, session);
    const peers = walletSide.body.events
      .filter((e: any) => e.type === 'exchange.correlated')
      .map((e: any) => e.data.stream);
    expect(peers).toHaveLength(1);
    expect(peers[0]).toMatch(/^issuance:/);
    const issuance = (await (await fetch(`${main.url}/api/streams/${peers[0]}/export`)).json()) as any;
    expect(issuance.events.filter((e: any) => e.type === 'issuance.correlated').map((e: any) => e.data.stream)).toEqual(
      [exchange],
    );
    const page = await (await fetch(`${main.url}/streams/${peers[0]}`, { headers: { accept: 'text/html' } })).text();
    // The link goes to the wallet origin the main origin is configured with (WALLET_URL). Read as HTML:
    // the markdown twin escapes an id that starts with `_`, as markdown must.
    expect(page).toMatch(
      new RegExp(
        `Took part in the same exchange: <a href="[^"]*/api/exchanges/${issued.body._exchange.id}/export">${exchange}</a>`,
      ),
    );

    const created = (await (
      await fetch(`${main.url}/oid4vp/request/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          dcql_query: { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] },
        }),
      })
    ).json()) as any;
    const submitted = await call('/submit', session, { uri: created.authorization_request_uri });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const presentationStream = `presentation:${created.request_id}`;
    const presented = await call(`/${submitted.body._exchange.export}`, session);
    expect(
      presented.body.events.filter((e: any) => e.type === 'exchange.correlated').map((e: any) => e.data.stream),
    ).toEqual([presentationStream]);
    const verifierSide = (await (
      await fetch(`${main.url}/api/streams/${presentationStream}/export?transaction_id=${created.transaction_id}`)
    ).json()) as any;
    expect(verifierSide.events.find((e: any) => e.type === 'presentation.correlated').data.stream).toBe(
      submitted.body._exchange.stream,
    );
  });
});
