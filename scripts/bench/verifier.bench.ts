import { rmSync } from 'node:fs';
import { Agent, request } from 'undici';
import { holderKey, issueFromOurIssuer, presentMdoc } from '../../test/support/holder.ts';
import { signJwt } from '../../services/crypto/jws.ts';
import { presentSdJwtVc } from '../../services/credentials/sd-jwt/present.ts';
import { createHash } from 'node:crypto';
import { startChildServer, startPeerProcess } from './support/child-server.ts';
import { flowFigure, interleavedRounds, machineRows, type Bench, type FlowFigure } from './types.ts';

const CONCURRENCY = 8;
const DURATION_MS = 4_000;
const ROUNDS = 3;

const QUERIES = {
  'SD-JWT VC': { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['family_name'] }, { path: ['degree'] }] }] },
  mdoc: { credentials: [{ id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' }, claims: [{ path: ['org.iso.18013.5.1', 'family_name'] }, { path: ['org.iso.18013.5.1', 'document_number'] }] }] },
} as const;

/**
 * Presentation verification over HTTP as a verifier's front end and a wallet drive it: create a
 * request -> (the wallet builds its presentation here, in the load generator) -> POST the response
 * -> GET the result, which must be `verified`. CONCURRENCY flows at a time for DURATION_MS.
 */
async function measure(base: string, pid: number, kind: keyof typeof QUERIES, present: (created: Record<string, any>) => Promise<Record<string, string[]>>): Promise<FlowFigure> {
  const agent = new Agent({ connections: CONCURRENCY * 2 });
  const call = async (method: 'GET' | 'POST', url: string, body?: { json?: unknown; form?: Record<string, string> }) => {
    const res = await request(url, {
      method,
      dispatcher: agent,
      body: body?.json !== undefined ? JSON.stringify(body.json) : body?.form ? new URLSearchParams(body.form).toString() : undefined,
      headers: body?.json !== undefined ? { 'content-type': 'application/json' } : body?.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
    });
    const parsed = (await res.body.json()) as Record<string, any>;
    if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${JSON.stringify(parsed)}`);
    return parsed;
  };
  const flow = async () => {
    const created = await call('POST', `${base}/oid4vp/request/create`, { json: { dcql_query: QUERIES[kind] } });
    const vpToken = await present(created);
    await call('POST', created.response_uri, { form: { vp_token: JSON.stringify(vpToken), state: created.state } });
    const result = await call('GET', created.result_uri);
    if (result.status !== 'verified') throw new Error(`not verified: ${JSON.stringify(result)}`);
  };
  try {
    return await flowFigure(flow, pid, CONCURRENCY, DURATION_MS);
  } finally {
    await agent.close();
  }
}

const bench: Bench = async () => {
  const server = await startChildServer();
  const peer = await startPeerProcess('scripts/bench/support/peer-verifier.ts', { PORTICO_URL: server.url });
  try {
    const holder = await holderKey();
    const nowS = () => Math.floor(Date.now() / 1000);
    const sdJwt = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS())) as string;
    const mdl = (await issueFromOurIssuer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS())) as string;
    const answering = (c: Record<string, any>) => ({ clientId: c.client_id, nonce: c.nonce, responseUri: c.response_uri, nowS: nowS() });
    // The wallet side is made cheap so the servers, not the load generator, set the pace: the
    // disclosures are chosen once, and each KB-JWT is signed synchronously with node:crypto.
    const disclosed = await presentSdJwtVc(sdJwt, { disclose: [['family_name'], ['degree']] });
    const sdHash = createHash('sha256').update(disclosed).digest('base64url');
    const kbKey = { alg: 'ES256' as const, kid: undefined as unknown as string, privateKey: holder.privateKey, publicKey: holder.publicKey, publicJwk: holder.jwk };
    const presenters = {
      'SD-JWT VC': async (c: Record<string, any>) => ({ degree: [`${disclosed}${signJwt(kbKey, { typ: 'kb+jwt' }, { iat: nowS(), aud: c.client_id, nonce: c.nonce, sd_hash: sdHash })}`] }),
      mdoc: async (c: Record<string, any>) => ({ mdl: [await presentMdoc(mdl, holder, answering(c), ['family_name', 'document_number'])] }),
    };
    const rows = [];
    for (const kind of ['SD-JWT VC', 'mdoc'] as const) {
      const r = await interleavedRounds(ROUNDS, () => measure(server.url, server.child.pid!, kind, presenters[kind]), () => measure(peer.url, peer.pid, kind, presenters[kind]));
      rows.push(
        { name: `peer verifier (Openid4vpVerifier + @sd-jwt / @auth0/mdl + dcql), ${kind}`, value: r.theirs.perSecond, unit: 'flows/s' },
        { name: `presentation create -> answer -> result, ${kind} (3 requests)`, value: r.ours.perSecond, unit: 'flows/s', ratio: { against: 'peer verifier', value: r.throughputRatio, target: '>= 1.5' }, note: `rounds ${r.rounds}` },
        { name: `  server CPU per flow, peer, ${kind}`, value: r.theirs.cpuMicros, unit: 'µs' },
        // Lower is better: the ratio is the peer's CPU per flow over ours.
        { name: `  server CPU per flow, ours, ${kind}`, value: r.ours.cpuMicros, unit: 'µs', ratio: { against: 'peer CPU per flow (theirs / ours)', value: r.cpuRatio } },
        ...machineRows(kind, r),
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
