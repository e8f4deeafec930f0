import { stringOf, stringsOf, arrayOf, memberAt, type JsonObject } from '../../untrusted/json.ts';
import { FlowFailure, expectStatus, type FlowRunners, type RunContext } from '../registry.ts';

/**
 * Runners of the `spiffe` catalog flows. The workload identity service is a separate service (its
 * own port, possibly its own process), so these runners talk to it over HTTP at its configured base
 * URL (SHOWCASE_BASE_URL) and record every exchange like any other run. They are registered only
 * when the deployment enables full mode (SHOWCASE_SPIFFE_ENABLED=true); a run that finds the service
 * in demo mode (agent unreachable) stops at its first step with that reason.
 */
async function requireFullMode(run: RunContext, spiffe: string): Promise<void> {
  const health = await run.http.send('Workload identity service mode', `${spiffe}/health`, {}, [
    'Full mode needs a reachable SPIFFE Workload API agent (spec section 3)',
  ]);
  expectStatus(health.status, 200, 'health');
  if (health.json.mode !== 'full') {
    throw new FlowFailure(
      `The workload identity service at ${spiffe} is in demo mode (${stringOf(health.json.last_error) ?? 'no Workload API agent'}); SPIFFE flows need full mode`,
    );
  }
}

function failedSteps(report: JsonObject): string {
  return arrayOf(report.steps)
    .filter((s) => memberAt(s, 'ok') !== true)
    .map((s) => `${String(memberAt(s, 'name'))}: ${String(memberAt(s, 'detail'))}`)
    .join('; ');
}

/** The audience of the flow's JWT-SVID: the receiving service (JWT-SVID §3.2: scoped to one service). */
const RECEIVER = 'spiffe-flow-receiver';

export function registerSpiffeRunners(runners: FlowRunners, spiffeBaseUrl: string): void {
  const spiffe = spiffeBaseUrl.replace(/\/+$/, '');

  runners.register('spiffe', 'x509-svid-mtls', async (run) => {
    await requireFullMode(run, spiffe);
    const svid = await run.http.send('Fetch the SVID', `${spiffe}/spiffe/svid/x509`, {}, [
      'Workload API §5.2.1: FetchX509SVID over the unix socket with workload.spiffe.io: true',
      'X.509-SVID: exactly one URI SAN, the SPIFFE ID',
    ]);
    expectStatus(svid.status, 200, 'X.509-SVID');
    const bundle = await run.http.send('Trust bundle', `${spiffe}/spiffe/.well-known/spiffe-bundle`, {}, [
      'SPIFFE Trust Domain and Bundle: JWK set, use x509-svid with x5c, use jwt-svid with kid',
    ]);
    expectStatus(bundle.status, 200, 'trust bundle');
    const call = await run.http.send('Handshake', `${spiffe}/spiffe/demo/mtls/call`, { method: 'POST' }, [
      'Mutual TLS to SPIRE_SERVER_ADDRESS presenting the SVID chain',
      'The peer is authenticated by its SPIFFE ID, not its host name',
    ]);
    expectStatus(call.status, 200, 'mTLS demo');
    if (call.json.outcome !== 'success') throw new FlowFailure(`mTLS demo failed: ${failedSteps(call.json)}`);
    const chain = await run.http.send('Our chain as PEM', `${spiffe}/spiffe/svid/x509/chain`, {}, [
      'application/x-pem-file, leaf first',
    ]);
    expectStatus(chain.status, 200, 'chain');
    const verdict = await run.http.send(
      'Verify the peer',
      `${spiffe}/spiffe/validate/x509`,
      { json: { pem: chain.text } },
      ['X.509-SVID validation: chain to the bundle, one SPIFFE ID, leaf not a CA, validity, trust domain'],
    );
    expectStatus(verdict.status, 200, 'X.509 validation');
    if (verdict.json.valid !== true)
      throw new FlowFailure(`our own SVID did not validate: ${stringsOf(verdict.json.reasons).join('; ')}`);
  });

  runners.register('spiffe', 'jwt-svid-auth', async (run) => {
    await requireFullMode(run, spiffe);
    const audience = RECEIVER;
    const fetched = await run.http.send(
      'Fetch a JWT-SVID',
      `${spiffe}/spiffe/svid/jwt?${new URLSearchParams({ audience })}`,
      {},
      [
        'Workload API §6.2: FetchJWTSVID with the audience',
        'JWT-SVID §3: sub is the SPIFFE ID, aud and exp are required',
      ],
    );
    expectStatus(fetched.status, 200, 'JWT-SVID');
    const token = String(fetched.json.svid);
    const accepted = await run.http.send(
      'Present the token',
      `${spiffe}/spiffe/validate/jwt`,
      { json: { token, audience } },
      ['JWT-SVID §4: signature with the JWT bundle, aud, exp'],
    );
    expectStatus(accepted.status, 200, 'validation');
    if (accepted.json.valid !== true)
      throw new FlowFailure(`the JWT-SVID did not validate: ${stringsOf(accepted.json.reasons).join('; ')}`);
    const roundTrip = await run.http.send('Validate', `${spiffe}/spiffe/demo/jwt-auth/call`, { json: { audience } }, [
      'Workload API §6.3: ValidateJWTSVID round trip through the agent',
    ]);
    expectStatus(roundTrip.status, 200, 'JWT auth demo');
    if (roundTrip.json.outcome !== 'success')
      throw new FlowFailure(`JWT auth demo failed: ${failedSteps(roundTrip.json)}`);
    const refused = await run.http.send(
      'Refuse another audience',
      `${spiffe}/spiffe/validate/jwt`,
      { json: { token, audience: `${audience}-elsewhere` } },
      ["JWT-SVID §3.2: the validator's audience must be an aud element"],
    );
    expectStatus(refused.status, 200, 'validation');
    if (refused.json.valid !== false) throw new FlowFailure('a token for another audience was accepted');
  });
}
