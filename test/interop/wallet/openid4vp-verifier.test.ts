import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

/**
 * Issue 19 interop: a verifier the wallet was not written with. `@openid4vc/openid4vp`'s
 * Openid4vpVerifier with `@sd-jwt/sd-jwt-vc`, `@auth0/mdl` and `dcql` (scripts/bench/support/
 * peer-verifier.ts, unmodified libraries) runs on a loopback port as the wallet's target; the
 * credentials come from our issuer, which that verifier trusts.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let main: TestServer;
let wallet: TestWallet;
let peer: { url: string; stop(): void };
beforeAll(async () => {
  main = await startMainServer();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/support/peer-verifier.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORTICO_URL: main.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`peer verifier exited (${code}): ${out}`)));
  });
  peer = { url, stop: () => child.kill('SIGTERM') };
  const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
  wallet = await startWalletServer({
    clock: main.clock,
    env: {
      BASE_URL: main.url,
      WALLET_TARGET_BASE_URL: peer.url,
      WALLET_ISSUER_BASE_URL: main.url,
      WALLET_MDOC_IACA_ROOT_PEM: iaca,
    },
  });
}, 60_000);
afterAll(async () => {
  await wallet.close();
  peer.stop();
  await main.close();
});

const submit = async (session: string, uri: string) => {
  const res = await fetch(`${wallet.url}/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-session': session },
    body: JSON.stringify({ uri }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('interop: our wallet against an Openid4vpVerifier-based verifier', () => {
  for (const [label, query] of [
    [
      'SD-JWT VC',
      {
        credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['family_name'] }, { path: ['degree'] }] }],
      },
    ],
    [
      'mdoc',
      {
        credentials: [
          {
            id: 'mdl',
            format: 'mso_mdoc',
            meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
            claims: [
              { path: ['org.iso.18013.5.1', 'family_name'] },
              { path: ['org.iso.18013.5.1', 'document_number'] },
            ],
          },
        ],
      },
    ],
  ] as const)
    for (const mode of ['direct_post', 'direct_post.jwt'] as const) {
      it(`${label}, ${mode}: its request by value, our /submit (auto-issued from our issuer), its verdict`, async () => {
        const created = (await (
          await fetch(`${peer.url}/oid4vp/request/create`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ dcql_query: query, response_mode: mode }),
          })
        ).json()) as Record<string, any>;
        if (mode === 'direct_post.jwt')
          expect(decodeURIComponent(created.authorization_request_uri)).toContain(
            '"encrypted_response_enc_values_supported"',
          );
        const answered = await submit(`peer-${label.replace(/\W/g, '')}`, created.authorization_request_uri);
        expect(answered.status, JSON.stringify(answered.body).slice(0, 400)).toBe(200);
        expect(answered.body.upstream_status).toBe(200);
        const verdict = (await (await fetch(created.result_uri)).json()) as Record<string, any>;
        expect(verdict.status, JSON.stringify(verdict)).toBe('verified');
      });
    }

  // Issue 47: over the Digital Credentials API, the peer parses our wallet's answer for the origin and
  // checks the KB-JWT aud origin:<origin> and the mdoc's OpenID4VPDCAPIHandover (@owf/mdoc).
  for (const [label, query] of [
    ['SD-JWT VC', { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] }],
    [
      'mdoc',
      {
        credentials: [
          {
            id: 'mdl',
            format: 'mso_mdoc',
            meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
            claims: [{ path: ['org.iso.18013.5.1', 'family_name'] }],
          },
        ],
      },
    ],
  ] as const)
    it(`dc_api, ${label}: its digital argument, our /api/dc-api/present, its verdict`, async () => {
      const created = (await (
        await fetch(`${peer.url}/oid4vp/request/create`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ dcql_query: query, response_mode: 'dc_api' }),
        })
      ).json()) as Record<string, any>;
      const origin = new URL(peer.url).origin;
      const res = await fetch(`${wallet.url}/api/dc-api/present`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-session': `peer-dc-${label.length}` },
        body: JSON.stringify({ origin, requests: created.digital.requests }),
      });
      const answer = (await res.json()) as Record<string, any>;
      expect(res.status, JSON.stringify(answer).slice(0, 400)).toBe(200);
      const posted = await fetch(created.dc_api_response_uri, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ origin, data: answer.data }),
      });
      expect(posted.status).toBe(200);
      const verdict = (await (await fetch(created.result_uri)).json()) as Record<string, any>;
      expect(verdict.status, JSON.stringify(verdict)).toBe('verified');
    });

  // Issue 47: the peer's own verifyTransactionData judges the hashes our wallet binds into the KB-JWT.
  const degree = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };
  const payment = {
    type: 'urn:portico:transaction-data:payment-confirmation',
    credential_ids: ['degree'],
    amount: '9.99',
    currency: 'EUR',
    payee: 'Peer Shop',
  };
  for (const [label, entries] of [
    ['a payment confirmation (sha-256 by default)', [payment]],
    [
      'an entry allowing only sha-384 (the KB-JWT names it)',
      [{ ...payment, transaction_data_hashes_alg: ['sha-384'] }],
    ],
  ] as const)
    it(`transaction data, ${label}: its request, our /submit, its verifyTransactionData`, async () => {
      const create = async (transaction_data: unknown[]) =>
        (await (
          await fetch(`${peer.url}/oid4vp/request/create`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ dcql_query: degree, transaction_data }),
          })
        ).json()) as Record<string, any>;
      const created = await create([...entries]);
      const answered = await submit(`peer-td-${label.length}`, created.authorization_request_uri);
      expect(answered.status, JSON.stringify(answered.body).slice(0, 400)).toBe(200);
      const verdict = (await (await fetch(created.result_uri)).json()) as Record<string, any>;
      expect(verdict.status, JSON.stringify(verdict)).toBe('verified');
    });
});
