import { loadToolSettings } from '../../adapters/config.ts';
import {
  createDeviceResponse,
  oid4vpHandoverOfThumbprint,
  parseIssuerSigned,
} from '../../services/credentials/mdoc/index.ts';
import { holderKey, issueFromOurIssuer } from '../../test/support/holder.ts';
import { startChildServer, startPeerProcess, stopComparison } from '../support/child-server.ts';
import { presentationFlow, QUERIES, sdJwtPresenter } from './support/presentation-flow.ts';
import { flowFigure, interleavedRounds, peerComparisonRows, type Bench } from './types.ts';

const DURATION_MS = 4_000;
/** How each side handles the credential's status list, said in the row so the ratio compares like with like. */
const STATUS_HANDLING = {
  'SD-JWT VC': 'status: both sides check the list, each fetched once and cached for its ttl',
  mdoc: "status: ours checks the list (cached for its ttl); the peer's @auth0/mdl checks none",
} as const;
const ROUNDS = 5;
const KINDS = ['SD-JWT VC', 'mdoc'] as const;

/** `BENCH_VERIFIER_KINDS=mdoc` (comma-separated) runs only those credential kinds; unset, both. */
function kindsToRun(): readonly (typeof KINDS)[number][] {
  const asked = loadToolSettings().benchVerifierKinds;
  if (!asked) return KINDS;
  const kinds = KINDS.filter((k) => asked.includes(k));
  if (kinds.length === 0) throw new Error(`BENCH_VERIFIER_KINDS names none of ${KINDS.join(', ')}`);
  return kinds;
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
    const presenters = {
      'SD-JWT VC': await sdJwtPresenter(sdJwt, holder),
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
    for (const kind of kindsToRun()) {
      const r = await interleavedRounds(
        ROUNDS,
        () => flowFigure(presentationFlow(server.url, QUERIES[kind], presenters[kind]), server.child.pid!, DURATION_MS),
        () => flowFigure(presentationFlow(peer.url, QUERIES[kind], presenters[kind]), peer.pid, DURATION_MS),
      );
      rows.push(
        ...peerComparisonRows(
          {
            peer: `peer verifier (Openid4vpVerifier + @sd-jwt / @auth0/mdl + dcql), ${kind}`,
            ours: `presentation create -> answer -> result, ${kind} (3 requests)`,
            against: 'peer verifier',
            label: kind,
            note: STATUS_HANDLING[kind],
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
