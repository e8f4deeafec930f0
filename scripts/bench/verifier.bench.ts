import { rmSync } from 'node:fs';
import { holderKey, issueFromOurIssuer } from '../../test/support/holder.ts';
import {
  createDeviceResponse,
  oid4vpHandoverOfThumbprint,
  parseIssuerSigned,
} from '../../services/credentials/mdoc/index.ts';
import { signJwt } from '../../services/crypto/jws.ts';
import { presentSdJwtVc } from '../../services/credentials/sd-jwt/present.ts';
import { createHash } from 'node:crypto';
import { startChildServer, startPeerProcess } from '../support/child-server.ts';
import { flowLoad, type FlowStep } from './support/flow-load.ts';
import { flowFigure, interleavedRounds, machineRows, type Bench } from './types.ts';

const CONCURRENCY = 8;
const DURATION_MS = 4_000;
const ROUNDS = 5;

const QUERIES = {
  'SD-JWT VC': {
    credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['family_name'] }, { path: ['degree'] }] }],
  },
  mdoc: {
    credentials: [
      {
        id: 'mdl',
        format: 'mso_mdoc',
        meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
        claims: [{ path: ['org.iso.18013.5.1', 'family_name'] }, { path: ['org.iso.18013.5.1', 'document_number'] }],
      },
    ],
  },
} as const;

/** The path of an absolute URL on the server under test (its answers name their own origin). */
const pathOf = (url: string) => url.slice(url.indexOf('/', url.indexOf('//') + 2));

/**
 * Presentation verification over HTTP as a verifier's front end and a wallet drive it: create a
 * request -> (the wallet builds its presentation here, in the load generator) -> POST the response
 * -> GET the result, which must be `verified`. CONCURRENCY flows at a time.
 */
function presentationFlow(
  base: string,
  kind: keyof typeof QUERIES,
  present: (created: Record<string, any>) => Record<string, string[]>,
) {
  const create = JSON.stringify({ dcql_query: QUERIES[kind] });
  const steps: FlowStep[] = [
    {
      method: 'POST',
      path: () => '/oid4vp/request/create',
      body: () => ({ type: 'application/json', text: create }),
      read: (body, flow) => {
        flow.created = JSON.parse(body);
      },
    },
    {
      method: 'POST',
      path: (flow) => pathOf(flow.created.response_uri),
      body: (flow) => ({
        type: 'application/x-www-form-urlencoded',
        text: new URLSearchParams({
          vp_token: JSON.stringify(present(flow.created)),
          state: flow.created.state,
        }).toString(),
      }),
    },
    {
      method: 'GET',
      path: (flow) => pathOf(flow.created.result_uri),
      read: (body) => {
        if ((JSON.parse(body) as { status?: unknown }).status !== 'verified') throw new Error(`not verified: ${body}`);
      },
    },
  ];
  return flowLoad(base, steps, CONCURRENCY);
}

const bench: Bench = async () => {
  const server = await startChildServer();
  const peer = await startPeerProcess('scripts/bench/support/peer-verifier.ts', { PORTICO_URL: server.url });
  try {
    const holder = await holderKey();
    const nowS = () => Math.floor(Date.now() / 1000);
    const sdJwt = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS())) as string;
    const mdl = (await issueFromOurIssuer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS())) as string;
    const issuerSigned = parseIssuerSigned(Buffer.from(mdl, 'base64url'));
    // The wallet side is made cheap so the servers, not the load generator, set the pace: the
    // disclosures are chosen and the mdoc parsed once, and each KB-JWT or device signature is made
    // synchronously with node:crypto.
    const disclosed = await presentSdJwtVc(sdJwt, { disclose: [['family_name'], ['degree']] });
    const sdHash = createHash('sha256').update(disclosed).digest('base64url');
    const kbKey = {
      alg: 'ES256' as const,
      kid: undefined as unknown as string,
      privateKey: holder.privateKey,
      publicKey: holder.publicKey,
      publicJwk: holder.jwk,
    };
    const presenters = {
      'SD-JWT VC': (c: Record<string, any>) => ({
        degree: [
          `${disclosed}${signJwt(kbKey, { typ: 'kb+jwt' }, { iat: nowS(), aud: c.client_id, nonce: c.nonce, sd_hash: sdHash })}`,
        ],
      }),
      mdoc: (c: Record<string, any>) => {
        const handover = oid4vpHandoverOfThumbprint(
          { clientId: c.client_id, nonce: c.nonce, responseUri: c.response_uri },
          null,
        );
        const response = createDeviceResponse({
          issuerSigned,
          disclose: { 'org.iso.18013.5.1': ['family_name', 'document_number'] },
          deviceKey: { privateKey: holder.privateKey },
          sessionTranscript: [null, null, handover],
        });
        return { mdl: [Buffer.from(response).toString('base64url')] };
      },
    };
    const rows = [];
    for (const kind of ['SD-JWT VC', 'mdoc'] as const) {
      const r = await interleavedRounds(
        ROUNDS,
        () => flowFigure(presentationFlow(server.url, kind, presenters[kind]), server.child.pid!, DURATION_MS),
        () => flowFigure(presentationFlow(peer.url, kind, presenters[kind]), peer.pid, DURATION_MS),
      );
      rows.push(
        {
          name: `peer verifier (Openid4vpVerifier + @sd-jwt / @auth0/mdl + dcql), ${kind}`,
          value: r.theirs.perSecond,
          unit: 'flows/s',
        },
        {
          name: `presentation create -> answer -> result, ${kind} (3 requests)`,
          value: r.ours.perSecond,
          unit: 'flows/s',
          ratio: { against: 'peer verifier', value: r.throughputRatio, target: '>= 1.5' },
          note: `rounds ${r.rounds}`,
        },
        { name: `  server CPU per flow, peer, ${kind}`, value: r.theirs.cpuMicros, unit: 'µs' },
        // Lower is better: the ratio is the peer's CPU per flow over ours.
        {
          name: `  server CPU per flow, ours, ${kind}`,
          value: r.ours.cpuMicros,
          unit: 'µs',
          ratio: { against: 'peer CPU per flow (theirs / ours)', value: r.cpuRatio },
        },
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
