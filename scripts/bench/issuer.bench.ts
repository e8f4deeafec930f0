import { rmSync } from 'node:fs';
import { exportJWK, generateKeyPair } from 'jose';
import { Agent, request } from 'undici';
import { signJwt } from '../../services/crypto/jws.ts';
import { startChildServer, startPeerProcess } from './support/child-server.ts';
import { concurrentFlows, flowFigure, interleavedRounds, machineRows, type Bench, type FlowFigure } from './types.ts';

const PRE = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const CONCURRENCY = 8;
const DURATION_MS = 4_000;
const ROUNDS = 3;

/**
 * One pre-authorized issuance as a wallet does it, over HTTP: offer -> token -> nonce -> credential
 * (one key proof). The holder's proof is signed here, in the load generator, synchronously with
 * node:crypto, so the servers rather than the load generator set the pace.
 */
async function issuanceFlow(base: string, configuration: string) {
  const agent = new Agent({ connections: CONCURRENCY * 2 });
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  const holder = { alg: 'ES256' as const, kid: undefined as unknown as string, privateKey, publicKey, publicJwk: jwk };
  const call = async (path: string, init: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {}) => {
    const body = init.form ? new URLSearchParams(init.form).toString() : init.json !== undefined ? JSON.stringify(init.json) : undefined;
    const res = await request(`${base}${path}`, { method: 'POST', dispatcher: agent, body, headers: { ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers } });
    const parsed = (await res.body.json()) as Record<string, any>;
    if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${JSON.stringify(parsed)}`);
    return parsed;
  };
  const flow = async () => {
    const offer = await call('/oid4vci/offers', { json: { credential_configuration_ids: [configuration] } });
    const token = await call('/oid4vci/token', { form: { grant_type: PRE, 'pre-authorized_code': offer.pre_authorized_code } });
    const { c_nonce } = await call('/oid4vci/nonce');
    const proof = signJwt(holder, { typ: 'openid4vci-proof+jwt', jwk }, { nonce: c_nonce, aud: `${base}/oid4vci`, iat: Math.floor(Date.now() / 1000) });
    await call('/oid4vci/credential', { json: { credential_configuration_id: configuration, proofs: { jwt: [proof] } }, headers: { authorization: `Bearer ${token.access_token}` } });
  };
  return { flow, close: () => agent.close() };
}

/** Issuance flows per second against `base`, CONCURRENCY at a time for DURATION_MS (after a warm-up). */
export async function flowsPerSecond(base: string, configuration: string): Promise<number> {
  const { flow, close } = await issuanceFlow(base, configuration);
  const { done, seconds } = await concurrentFlows(flow, CONCURRENCY, DURATION_MS);
  await close();
  return done / seconds;
}

/** Flows per second and the server's CPU per flow, against the server process `pid` at `base`. */
async function measure(base: string, pid: number, configuration: string): Promise<FlowFigure> {
  const { flow, close } = await issuanceFlow(base, configuration);
  try {
    return await flowFigure(flow, pid, CONCURRENCY, DURATION_MS);
  } finally {
    await close();
  }
}

const bench: Bench = async () => {
  const server = await startChildServer();
  const peer = await startPeerProcess('scripts/bench/support/peer-issuer.ts');
  try {
    const rows = [];
    for (const [label, configuration] of [['SD-JWT VC', 'UniversityDegreeCredential'], ['mdoc', 'MobileDrivingLicenceMsoMdoc']] as const) {
      const r = await interleavedRounds(ROUNDS, () => measure(server.url, server.child.pid!, configuration), () => measure(peer.url, peer.pid, configuration));
      rows.push(
        { name: `peer issuer (Openid4vciIssuer + @sd-jwt / @auth0/mdl), ${label}`, value: r.theirs.perSecond, unit: 'flows/s' },
        { name: `pre-authorized issuance end to end, ${label} (4 requests)`, value: r.ours.perSecond, unit: 'flows/s', ratio: { against: 'peer issuer', value: r.throughputRatio, target: '>= 1.5' }, note: `rounds ${r.rounds}` },
        { name: `  server CPU per flow, peer, ${label}`, value: r.theirs.cpuMicros, unit: 'µs' },
        // Lower is better: the ratio is the peer's CPU per flow over ours.
        { name: `  server CPU per flow, ours, ${label}`, value: r.ours.cpuMicros, unit: 'µs', ratio: { against: 'peer CPU per flow (theirs / ours)', value: r.cpuRatio } },
        ...machineRows(label, r),
      );
    }
    return rows;
  } finally {
    await peer.stop();
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
};

export default bench;
