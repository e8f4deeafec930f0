import { rmSync } from 'node:fs';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { Agent, request } from 'undici';
import { startChildServer, startPeerProcess } from './support/child-server.ts';
import { concurrentFlows, type Bench } from './types.ts';

const PRE = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const CONCURRENCY = 8;
const DURATION_MS = 5_000;

/**
 * Pre-authorized issuance end to end over HTTP, as a wallet does it: offer -> token -> nonce ->
 * credential (one key proof), CONCURRENCY flows at a time for DURATION_MS, against the issuer in its
 * own process. The holder's proof signing runs here, in the load generator.
 */
export async function flowsPerSecond(base: string, configuration: string): Promise<number> {
  const agent = new Agent({ connections: CONCURRENCY * 2 });
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
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
    const proof = await new SignJWT({ nonce: c_nonce }).setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk }).setAudience(`${base}/oid4vci`).setIssuedAt().sign(privateKey);
    await call('/oid4vci/credential', { json: { credential_configuration_id: configuration, proofs: { jwt: [proof] } }, headers: { authorization: `Bearer ${token.access_token}` } });
  };
  const { done, seconds } = await concurrentFlows(flow, CONCURRENCY, DURATION_MS);
  await agent.close();
  return done / seconds;
}

const bench: Bench = async () => {
  const server = await startChildServer();
  const peer = await startPeerProcess('scripts/bench/support/peer-issuer.ts');
  try {
    const rows = [];
    for (const [label, configuration] of [['SD-JWT VC', 'UniversityDegreeCredential'], ['mdoc', 'MobileDrivingLicenceMsoMdoc']] as const) {
      // Interleaved, so neither side gets a quieter stretch of the machine.
      const ours = await flowsPerSecond(server.url, configuration);
      const theirs = await flowsPerSecond(peer.url, configuration);
      rows.push(
        { name: `peer issuer (Openid4vciIssuer + @sd-jwt / @auth0/mdl), ${label}`, value: theirs, unit: 'flows/s' },
        { name: `pre-authorized issuance end to end, ${label} (4 requests)`, value: ours, unit: 'flows/s', ratio: { against: 'peer issuer', value: ours / theirs, target: '>= 1.5' } },
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
