import { FlowFailure, expectStatus, numberIn, stringIn, type FlowRunners } from '../registry.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export function registerAgentAuthRunners(runners: FlowRunners, claimGrantType: string): void {
  runners.register('agentauth', 'register-and-claim', async (run) => {
    const reg = await run.http.send('Register', `${run.base}/agentauth/identity`, { json: { type: 'anonymous' } }, [
      'Anonymous registration: no console, no API key',
    ]);
    expectStatus(reg.status, 201, 'registration');
    const redeem = await run.http.send(
      'Redeem the identity assertion',
      `${run.base}/agentauth/token`,
      { form: { grant_type: JWT_BEARER, assertion: stringIn(reg, 'identity_assertion') } },
      ['RFC 7523 §2.1: the assertion as an authorization grant', 'Unclaimed agents get agent:read'],
    );
    expectStatus(redeem.status, 200, 'redemption');
    const again = await run.http.send(
      'Replay the assertion',
      `${run.base}/agentauth/token`,
      { form: { grant_type: JWT_BEARER, assertion: stringIn(reg, 'identity_assertion') } },
      ['RFC 7523 §3 item 7: a jti is accepted once: invalid_grant'],
    );
    expectStatus(again.status, 400, 'replay');
    const email = String(run.options.email ?? 'person@example.com');
    const claim = await run.http.send(
      'Start the claim',
      `${run.base}/agentauth/identity/claim`,
      { json: { claim_token: stringIn(reg, 'claim_token'), email } },
      [
        'RFC 8628 §3.2: user_code, verification_uri, expires_in 600, interval 5',
        'The agent shows the code to the person and does not open the URI itself',
      ],
    );
    expectStatus(claim.status, 200, 'claim start');
    const pending = await run.http.send(
      'Poll',
      `${run.base}/agentauth/token`,
      { form: { grant_type: claimGrantType, claim_token: stringIn(reg, 'claim_token') } },
      ['RFC 8628 §3.5: authorization_pending'],
    );
    if (pending.json.error !== 'authorization_pending') throw new FlowFailure('expected authorization_pending');
    // A separate actor: the person, in their own browser.
    const approve = await run.http.send(
      'Person approves on the claim page (separate actor)',
      `${run.base}/agentauth/claim`,
      { form: { user_code: stringIn(claim, 'user_code'), decision: 'approve' } },
      ['Performed by the runner as the person; the claim page does not authenticate the approver (known deviation)'],
    );
    expectStatus(approve.status, 200, 'approval');
    await run.wait(numberIn(claim, 'interval') * 1000);
    const granted = await run.http.send(
      'Poll after approval',
      `${run.base}/agentauth/token`,
      { form: { grant_type: claimGrantType, claim_token: stringIn(reg, 'claim_token') } },
      [
        'Polls no faster than interval, else slow_down',
        'agent:read agent:write and a replacement assertion with claimed: true',
      ],
    );
    expectStatus(granted.status, 200, 'granted poll');
    if (granted.json.scope !== 'agent:read agent:write')
      throw new FlowFailure('claimed scope should be agent:read agent:write');
  });
}
