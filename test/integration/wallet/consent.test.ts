import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 30 item 18: the consent page always lets a person decline, marks required claims, confirms
// before sending a presentation that cannot satisfy the query, says what HTTP 200 means, and takes
// decisions only from its own form.
let main: TestServer;
let wallet: TestWallet;
beforeAll(async () => {
  main = await startMainServer();
  wallet = await startWalletServer({ clock: main.clock, env: { BASE_URL: main.url } });
});
afterAll(async () => {
  await wallet.close();
  await main.close();
});

const degreeQuery = {
  credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['family_name'] }, { path: ['degree'] }] }],
};
const headers = (session: string, extra: Record<string, string> = {}) => ({ 'x-wallet-session': session, ...extra });

async function pendingRequest(session: string, dcql_query: unknown) {
  const created = (await exchange(main.url, '/oid4vp/request/create', json({ dcql_query }))).body;
  const resolved = await fetch(`${wallet.url}/api/resolve`, {
    method: 'POST',
    headers: headers(session, { 'content-type': 'application/json' }),
    body: JSON.stringify({ uri: created.authorization_request_uri }),
  });
  expect(resolved.status).toBe(200);
  const { request_id } = (await resolved.json()) as { request_id: string };
  const page = await (
    await fetch(`${wallet.url}/consent/${request_id}`, { headers: headers(session, { accept: 'text/html' }) })
  ).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  return { created, requestId: request_id, page, csrf };
}
const decide = (
  session: string,
  requestId: string,
  fields: Array<[string, string]>,
  extra: Record<string, string> = {},
) =>
  fetch(`${wallet.url}/consent/${requestId}`, {
    method: 'POST',
    headers: headers(session, { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...extra }),
    body: new URLSearchParams(fields).toString(),
  });
const resultOf = async (created: Record<string, any>) =>
  (await (await fetch(created.result_uri)).json()) as Record<string, any>;

describe('consent page (item 18)', () => {
  it('[item 18] with nothing that matches, the page still has a form to decline, and declining tells the verifier', async () => {
    const { created, requestId, page, csrf } = await pendingRequest('consent-empty', degreeQuery);
    expect(page).toContain('No credential of this session answers the request');
    expect(page).toMatch(/<form method="post"[^>]*>.*value="decline"/s);
    expect(page).not.toContain('value="approve"');
    expect(csrf).toBeTruthy();
    const declined = await decide('consent-empty', requestId, [
      ['csrf', csrf!],
      ['decision', 'decline'],
    ]);
    expect(declined.status).toBe(200);
    expect(await resultOf(created)).toMatchObject({ status: 'wallet_error', wallet_error: { error: 'access_denied' } });
  });

  it('[item 18] a decision without the form token, or posted cross-site, is refused and changes nothing', async () => {
    const { created, requestId, csrf } = await pendingRequest('consent-csrf', degreeQuery);
    expect((await decide('consent-csrf', requestId, [['decision', 'decline']])).status).toBe(403);
    expect(
      (
        await decide('consent-csrf', requestId, [
          ['csrf', 'forged'],
          ['decision', 'decline'],
        ])
      ).status,
    ).toBe(403);
    expect(
      (
        await decide(
          'consent-csrf',
          requestId,
          [
            ['csrf', csrf!],
            ['decision', 'decline'],
          ],
          { 'sec-fetch-site': 'cross-site' },
        )
      ).status,
    ).toBe(403);
    // Another session's token does not fit this session.
    const other = await pendingRequest('consent-other', degreeQuery);
    expect(
      (
        await decide('consent-csrf', requestId, [
          ['csrf', other.csrf!],
          ['decision', 'decline'],
        ])
      ).status,
    ).toBe(403);
    expect((await resultOf(created)).status).toMatch(/^(created|fetched)$/);
  });

  it('[item 18] required claims are marked; unticking one asks first; sending anyway says 200 is receipt, not acceptance', async () => {
    const session = 'consent-required';
    const issued = await fetch(`${wallet.url}/api/issue`, {
      method: 'POST',
      headers: headers(session, { 'content-type': 'application/json' }),
      body: JSON.stringify({ credential_configuration_id: 'UniversityDegreeCredential' }),
    });
    expect(issued.status).toBe(200);
    const { created, requestId, page, csrf } = await pendingRequest(session, degreeQuery);
    expect(page.match(/\(required\)/g)?.length).toBeGreaterThanOrEqual(2);
    const degreeOnly: Array<[string, string]> = [
      ['csrf', csrf!],
      ['decision', 'approve'],
      ['claim', 'degree|["degree"]'],
    ];
    const asked = await decide(session, requestId, degreeOnly);
    expect(asked.status).toBe(200);
    const warning = await asked.text();
    expect(warning).toContain('Required claims left out');
    expect(warning).toContain('family_name');
    expect(warning).toContain('name="confirm" value="yes"');
    expect((await resultOf(created)).status).toMatch(/^(created|fetched)$/);
    const sent = await decide(session, requestId, [...degreeOnly, ['confirm', 'yes']]);
    const text = await sent.text();
    expect(text).toContain('not that it was accepted');
    expect((await resultOf(created)).status).toBe('rejected');
  });

  it('[item 18] with claim_sets, only the claims every set names are required, and leaving out an optional one asks nothing', async () => {
    const session = 'consent-sets';
    await fetch(`${wallet.url}/api/issue`, {
      method: 'POST',
      headers: headers(session, { 'content-type': 'application/json' }),
      body: JSON.stringify({ credential_configuration_id: 'UniversityDegreeCredential' }),
    });
    const query = {
      credentials: [
        {
          id: 'degree',
          format: 'dc+sd-jwt',
          claims: [
            { id: 'f', path: ['family_name'] },
            { id: 'd', path: ['degree'] },
          ],
          claim_sets: [['f', 'd'], ['d']],
        },
      ],
    };
    const { created, requestId, page, csrf } = await pendingRequest(session, query);
    expect(page).toMatch(/family_name<\/code> \(optional\)/);
    expect(page).toMatch(/degree<\/code> <strong>\(required\)<\/strong>/);
    const sent = await decide(session, requestId, [
      ['csrf', csrf!],
      ['decision', 'approve'],
      ['claim', 'degree|["degree"]'],
    ]);
    expect(await sent.text()).toContain('Presented');
    expect((await resultOf(created)).status).toBe('verified');
  });
});
