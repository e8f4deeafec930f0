import { x509Authorities } from './bundle.ts';
import { certificateInfo, verifyChain } from './certificate.ts';
import { fingerprint256 } from './der.ts';
import { WorkloadApiCallError, type MtlsDialer, type WorkloadApiSession } from './ports.ts';
import type { SvidRotations } from './rotations.ts';
import { parseSpiffeId } from './spiffe-id.ts';
import { validateJwtSvid } from './validate-jwt.ts';

/**
 * The two demo calls of the workload identity service, each reported as the list of its steps. A
 * failed step ends the demo with `outcome: "failure"` (HTTP 200): the report is the answer.
 */
interface DemoStep {
  order: number;
  name: string;
  ok: boolean;
  detail: string;
  data?: Record<string, unknown>;
}

export interface DemoReport {
  demo: 'mtls' | 'jwt-auth';
  outcome: 'success' | 'failure';
  steps: DemoStep[];
  [key: string]: unknown;
}

class Steps {
  readonly list: DemoStep[] = [];
  add(name: string, ok: boolean, detail: string, data?: Record<string, unknown>): boolean {
    this.list.push({ order: this.list.length + 1, name, ok, detail, ...(data ? { data } : {}) });
    return ok;
  }
  get ok(): boolean {
    return this.list.every((s) => s.ok);
  }
}

/** `host:port` or `[v6]:port`. */
function parseAddress(address: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(address.trim());
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1] ?? m[2], port };
}

/**
 * Mutual TLS to SPIRE_SERVER_ADDRESS (never a caller-chosen target): present our X.509-SVID, then
 * verify the peer like a SPIFFE-aware TLS client does: its chain leads to our trust domain's bundle
 * and its certificate carries exactly one SPIFFE ID, a member of our trust domain.
 */
export async function mtlsDemo(
  session: WorkloadApiSession,
  deps: { dialer: MtlsDialer; address: string; trustDomain: string; now: number; timeoutMs?: number },
): Promise<DemoReport> {
  const steps = new Steps();
  const svid = session.x509().svids[0];
  const ours = certificateInfo(svid.chain[0]);
  steps.add(
    'Fetch our X.509-SVID',
    true,
    `FetchX509SVID stream: ${svid.spiffeId}, serial ${ours.serial}, valid until ${ours.notAfter.toISOString()}`,
    { spiffe_id: svid.spiffeId, serial: ours.serial, chain_length: svid.chain.length },
  );
  const base = { demo: 'mtls' as const, target: deps.address, our_spiffe_id: svid.spiffeId };
  const target = parseAddress(deps.address);
  if (
    !steps.add(
      'Resolve the target',
      Boolean(target),
      target
        ? `SPIRE_SERVER_ADDRESS ${deps.address}: host ${target.host}, port ${target.port}`
        : `SPIRE_SERVER_ADDRESS ${JSON.stringify(deps.address)} is not host:port`,
    )
  ) {
    return { ...base, outcome: 'failure', steps: steps.list };
  }
  const anchors = x509Authorities(session, deps.trustDomain);
  const dial = await deps.dialer.dial({
    host: target!.host,
    port: target!.port,
    chain: svid.chain,
    privateKey: svid.privateKey,
    trustAnchors: anchors,
    timeoutMs: deps.timeoutMs ?? 5_000,
  });
  if (
    !steps.add(
      'Mutual TLS handshake',
      dial.connected,
      dial.connected
        ? `${dial.protocol} ${dial.cipher ?? ''}`.trim() +
            `, our SVID chain presented as the client certificate, ${dial.durationMs} ms`
        : `handshake failed: ${dial.error}`,
      dial.connected
        ? { protocol: dial.protocol, cipher: dial.cipher, alpn: dial.alpn ?? null, duration_ms: dial.durationMs }
        : undefined,
    )
  ) {
    return { ...base, outcome: 'failure', steps: steps.list };
  }
  if (dial.peerChain.length === 0) {
    steps.add('Verify the peer chain', false, 'the peer sent no certificate');
    return { ...base, outcome: 'failure', steps: steps.list };
  }
  const anchorPrints = new Set(anchors.map(fingerprint256));
  const intermediates = dial.peerChain.slice(1).filter((der) => !anchorPrints.has(fingerprint256(der)));
  const chain = await verifyChain(dial.peerChain[0], intermediates, anchors, new Date(deps.now)).catch(
    (error: Error) => ({ ok: false, detail: `the peer chain could not be read: ${error.message}`, path: undefined }),
  );
  steps.add(
    'Verify the peer chain',
    chain.ok,
    `${chain.ok ? chain.detail : `rejected: ${chain.detail}`} (the TLS stack's own verdict against the same bundle: ${dial.tlsAuthorized ? 'authorized' : `not authorized${dial.tlsAuthorizationError ? `, ${dial.tlsAuthorizationError}` : ''}`})`,
    { bundle_authorities: anchors.length, ...(chain.path ? { path: chain.path } : {}) },
  );
  let peer: ReturnType<typeof certificateInfo>;
  try {
    peer = certificateInfo(dial.peerChain[0]);
  } catch (error) {
    steps.add(
      'Authorize the peer SPIFFE ID',
      false,
      `the peer certificate could not be read: ${(error as Error).message}`,
    );
    return { ...base, outcome: 'failure', steps: steps.list };
  }
  const id = peer.uriSans.length === 1 ? parseSpiffeId(peer.uriSans[0]) : undefined;
  const member = Boolean(id?.ok && id.value.trustDomain === deps.trustDomain);
  steps.add(
    'Authorize the peer SPIFFE ID',
    member,
    !id
      ? `the peer certificate has ${peer.uriSans.length} URI SANs; a SPIFFE peer has exactly one`
      : !id.ok
        ? `the peer URI SAN is not a SPIFFE ID: ${id.reason}`
        : member
          ? `${id.value.id} is a member of ${deps.trustDomain}`
          : `${id.value.id} is not in the trust domain ${deps.trustDomain}`,
    {
      peer_spiffe_id: id?.ok ? id.value.id : null,
      peer_serial: peer.serial,
      peer_not_after: peer.notAfter.toISOString(),
    },
  );
  return {
    ...base,
    ...(id?.ok ? { peer_spiffe_id: id.value.id } : {}),
    outcome: steps.ok ? 'success' : 'failure',
    steps: steps.list,
  };
}

/** gRPC codes that mean the agent did not answer, rather than refused. */
const TRANSPORT_FAILURES = new Set(['UNAVAILABLE', 'CANCELLED', 'DEADLINE_EXCEEDED', 'UNKNOWN', 'INTERNAL']);

const describeCallError = (error: unknown) =>
  error instanceof WorkloadApiCallError ? `${error.code}: ${error.message}` : (error as Error).message;

/**
 * JWT-SVID authentication: fetch a JWT-SVID for the audience from the agent, have the agent validate it
 * again (ValidateJWTSVID round trip, as the receiving workload would), check it locally against the
 * JWT bundle, and show that the same token is refused for another audience.
 */
export async function jwtAuthDemo(
  session: WorkloadApiSession,
  deps: { audience: string; trustDomain: string; now: number },
): Promise<DemoReport> {
  const steps = new Steps();
  const base = { demo: 'jwt-auth' as const, audience: deps.audience };
  let token: string;
  let spiffeId: string;
  try {
    const svids = await session.fetchJwtSvid([deps.audience]);
    if (svids.length === 0) throw new Error('the agent returned no JWT-SVID');
    token = svids[0].token;
    spiffeId = svids[0].spiffeId;
    steps.add('Fetch a JWT-SVID', true, `FetchJWTSVID for audience ${deps.audience}: ${spiffeId}`, {
      spiffe_id: spiffeId,
    });
  } catch (error) {
    steps.add('Fetch a JWT-SVID', false, `FetchJWTSVID failed: ${describeCallError(error)}`);
    return { ...base, outcome: 'failure', steps: steps.list };
  }
  try {
    const validated = await session.validateJwtSvid(deps.audience, token);
    const same = validated.spiffeId === spiffeId;
    steps.add(
      'Validate through the Workload API',
      same,
      same
        ? `ValidateJWTSVID accepted the token: ${validated.spiffeId}`
        : `ValidateJWTSVID named ${validated.spiffeId}, not ${spiffeId}`,
      { spiffe_id: validated.spiffeId, claims: validated.claims },
    );
  } catch (error) {
    steps.add(
      'Validate through the Workload API',
      false,
      `ValidateJWTSVID refused the token: ${describeCallError(error)}`,
    );
  }
  const local = await validateJwtSvid(session, { token, audience: deps.audience, now: deps.now });
  steps.add(
    'Validate locally against the JWT bundle',
    local.valid,
    local.valid ? local.checks.map((c) => c.detail).join('; ') : local.reasons.join('; '),
  );
  const other = `${deps.audience}/not-me`;
  try {
    await session.validateJwtSvid(other, token);
    steps.add('Refused for another audience', false, `ValidateJWTSVID accepted the token for ${other}`);
  } catch (error) {
    const refused = error instanceof WorkloadApiCallError && !TRANSPORT_FAILURES.has(error.code);
    steps.add(
      'Refused for another audience',
      refused,
      refused
        ? `ValidateJWTSVID refused it for ${other}: ${describeCallError(error)}`
        : `no answer from the agent: ${describeCallError(error)}`,
    );
  }
  return { ...base, spiffe_id: spiffeId, svid: token, outcome: steps.ok ? 'success' : 'failure', steps: steps.list };
}

/** `GET /spiffe/demo/rotation`: the current SVID, when the agent should renew it, and the rotations seen. */
export function rotationReport(
  svid: { spiffeId: string; chain: Uint8Array[] },
  events: Awaited<ReturnType<SvidRotations['history']>>,
) {
  const info = certificateInfo(svid.chain[0]);
  const from = info.notBefore.getTime();
  const to = info.notAfter.getTime();
  return {
    spiffe_id: svid.spiffeId,
    current: {
      serial: info.serial,
      not_before: info.notBefore.toISOString(),
      not_after: info.notAfter.toISOString(),
      fingerprint_sha256: info.fingerprint,
    },
    rotation_expected_at: iso(from + (to - from) / 2),
    rotations_observed: events.filter((e) => e.type === 'svid.rotated' && e.spiffe_id === svid.spiffeId).length,
    events,
    how: 'The agent pushes a new message on the FetchX509SVID stream when it renews an SVID (SPIRE renews at half of the lifetime). Each new serial is appended to the event log as svid.rotated; these events are read back here.',
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
