import { exportJWK, generateKeyPair } from 'jose';
import { signJwt } from '../../services/crypto/jws.ts';
import { startChildServer, startPeerProcess, stopComparison } from '../support/child-server.ts';
import { flowLoad, type FlowStep } from './support/flow-load.ts';
import { WARM_UP_MS, flowFigure, interleavedRounds, peerComparisonRows, type Bench, type FlowFigure } from './types.ts';

const PRE = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const CONCURRENCY = 8;
const DURATION_MS = 4_000;
const ROUNDS = 5;

/**
 * One pre-authorized issuance as a wallet does it, over HTTP: offer -> token -> nonce -> credential
 * (one key proof). The holder's proof is signed here, in the load generator, synchronously with
 * node:crypto, so the servers rather than the load generator set the pace.
 */
async function issuanceFlow(base: string, configuration: string) {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  const holder = { alg: 'ES256' as const, privateKey };
  const json = (value: unknown) => ({ type: 'application/json', text: JSON.stringify(value) });
  const offer = json({ credential_configuration_ids: [configuration] });
  const steps: FlowStep[] = [
    {
      method: 'POST',
      path: () => '/oid4vci/offers',
      body: () => offer,
      read: (body, flow) => {
        flow.code = JSON.parse(body).pre_authorized_code;
      },
    },
    {
      method: 'POST',
      path: () => '/oid4vci/token',
      body: (flow) => ({
        type: 'application/x-www-form-urlencoded',
        text: new URLSearchParams({ grant_type: PRE, 'pre-authorized_code': flow.code }).toString(),
      }),
      read: (body, flow) => {
        flow.token = JSON.parse(body).access_token;
      },
    },
    {
      method: 'POST',
      path: () => '/oid4vci/nonce',
      read: (body, flow) => {
        flow.nonce = JSON.parse(body).c_nonce;
      },
    },
    {
      method: 'POST',
      path: () => '/oid4vci/credential',
      headers: (flow) => ({ authorization: `Bearer ${flow.token}` }),
      body: (flow) =>
        json({
          credential_configuration_id: configuration,
          proofs: {
            jwt: [
              signJwt(
                holder,
                { typ: 'openid4vci-proof+jwt', jwk },
                { nonce: flow.nonce, aud: `${base}/oid4vci`, iat: Math.floor(Date.now() / 1000) },
              ),
            ],
          },
        }),
      read: (body) => {
        if (!Array.isArray(JSON.parse(body).credentials)) throw new Error(`no credentials: ${body}`);
      },
    },
  ];
  return flowLoad(base, steps, CONCURRENCY);
}

/** Issuance flows per second against `base`, CONCURRENCY at a time for DURATION_MS (after a warm-up). */
export async function flowsPerSecond(base: string, configuration: string): Promise<number> {
  const load = await issuanceFlow(base, configuration);
  await load(WARM_UP_MS);
  const { done, seconds } = await load(DURATION_MS);
  return done / seconds;
}

/** Flows per second and the server's CPU per flow, against the server process `pid` at `base`. */
async function measure(base: string, pid: number, configuration: string): Promise<FlowFigure> {
  return flowFigure(await issuanceFlow(base, configuration), pid, DURATION_MS);
}

const bench: Bench = async () => {
  const server = await startChildServer();
  const peer = await startPeerProcess('scripts/bench/support/peer-issuer.ts');
  try {
    const rows = [];
    for (const [label, configuration] of [
      ['SD-JWT VC', 'UniversityDegreeCredential'],
      ['mdoc', 'MobileDrivingLicenceMsoMdoc'],
    ] as const) {
      const r = await interleavedRounds(
        ROUNDS,
        () => measure(server.url, server.child.pid!, configuration),
        () => measure(peer.url, peer.pid, configuration),
      );
      rows.push(
        ...peerComparisonRows(
          {
            peer: `peer issuer (Openid4vciIssuer + @sd-jwt / @auth0/mdl), ${label}`,
            ours: `pre-authorized issuance end to end, ${label} (4 requests)`,
            against: 'peer issuer',
            label,
          },
          r,
        ),
      );
    }
    return rows;
  } finally {
    await stopComparison(server, peer);
  }
};

export default bench;
