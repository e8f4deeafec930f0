import { agentMachine, scopeFor, agentStates } from '../../machines/agent.ts';
import { pollOutcome } from '../../machines/claim-polling.ts';
import type { AgentRegistry } from '../../projections/agent-registry.ts';
import { ActorRuntime, type Loaded } from '../actors/runtime.ts';
import { ResourceGuard } from '../oauth/resource-guard.ts';
import type { Clock } from '../clock.ts';
import { oauthError, invalidRequest } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import { timeOrderedBase32, randomToken, sha256 } from '../crypto/random.ts';
import { ACCESS_TOKEN_LIFETIME_S, ASSERTION_LIFETIME_S, JWT_BEARER_GRANT, type AgentAuthSettings } from './settings.ts';
import { AgentTokens, INVALID_ASSERTION, type AgentAccessClaims } from './tokens.ts';
import { newUserCode } from './user-code.ts';
import { CLAIM_CODE_LIFETIME_MS, CLAIM_POLL_INTERVAL_MS } from '../../machines/claim-polling.ts';

export interface Registration {
  identity_assertion: string;
  agent_id: string;
  claim_token: string;
  identity_type: 'anonymous';
  claimed: false;
  expires_in: number;
  token_endpoint: string;
  claim_endpoint: string;
  grant_type: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  identity_assertion?: string;
  claimed?: true;
}

export type Decision = 'approve' | 'decline';

// A reasonable email shape; the sandbox sends no mail, so deliverability is not checked.
const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

const POLL_ERRORS: Record<'expired_token' | 'slow_down' | 'access_denied' | 'authorization_pending', string> = {
  expired_token: 'The user code has expired; start the claim again for a new one',
  slow_down: `Polling faster than every ${CLAIM_POLL_INTERVAL_MS / 1000} seconds; wait longer between polls`,
  access_denied: 'The person declined the claim',
  authorization_pending: 'The person has not approved the claim yet',
};

/** Agent self-registration: the use cases of spec section 3's agent lifecycle. */
export class AgentAuthService {
  readonly agents: ActorRuntime<typeof agentMachine>;
  readonly tokens: AgentTokens;
  /** The guard of `/agentauth/me`: an agent access token with scope `agent:read`, for an agent the log registered. */
  readonly resource: ResourceGuard<AgentAccessClaims, Loaded<typeof agentMachine>>;

  constructor(
    log: EventLog,
    private readonly registry: AgentRegistry,
    tokens: AgentTokens,
    readonly settings: AgentAuthSettings,
    private readonly clock: Clock,
    /** Keyed hash of user codes (see user-code.ts). */
    private readonly userCodeHash: (code: string) => string,
  ) {
    this.agents = ActorRuntime.of(log, agentMachine, 'agent');
    this.tokens = tokens;
    this.resource = new ResourceGuard({
      verify: (token) => tokens.verifyAccessToken(token, clock.now()),
      scope: 'agent:read',
      // A token signed with our key for an agent the log never registered speaks for nobody.
      subject: async (claims) => {
        const agent = await this.agents.get(claims.sub);
        return agent.version > 0 ? agent : undefined;
      },
      say: {
        missing: 'An agent access token is required',
        invalid: 'The access token is invalid or expired',
        unknownSubject: 'The access token names no registered agent',
      },
    });
  }

  async register(type: unknown): Promise<Registration> {
    if (type === undefined || type === null || type === '') throw invalidRequest('type is required; use "anonymous"');
    if (type !== 'anonymous') {
      throw oauthError(
        'unsupported_identity_type',
        'Only the "anonymous" identity type is accepted; this deployment federates with no external agent provider',
      );
    }
    const at = this.clock.now();
    const claimToken = randomToken(32);
    // Ids are time-ordered with 35 random bits; the rare id already taken is drawn again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const agentId = `agent-${timeOrderedBase32(at)}`;
      const assertion = await this.tokens.issueAssertion(agentId, false, at, 1);
      const outcome = await this.agents.create(agentId, {
        type: 'agent.registered',
        at,
        agentId,
        claimTokenHash: sha256(claimToken),
        assertion: assertion.record,
      });
      if (outcome.accepted) return this.registration(agentId, claimToken, assertion.jwt);
    }
    throw oauthError('temporarily_unavailable', 'Registration could not be recorded; try again');
  }

  private registration(agentId: string, claimToken: string, assertion: string): Registration {
    return {
      identity_assertion: assertion,
      agent_id: agentId,
      claim_token: claimToken,
      identity_type: 'anonymous',
      claimed: false,
      expires_in: ASSERTION_LIFETIME_S,
      token_endpoint: `${this.settings.issuer}/token`,
      claim_endpoint: `${this.settings.issuer}/identity/claim`,
      grant_type: JWT_BEARER_GRANT,
    };
  }

  /** RFC 7523 section 2.1: a valid, unused identity assertion for a registered agent. */
  async redeemAssertion(assertion: string): Promise<TokenResponse> {
    const at = this.clock.now();
    const { agentId, jtiHash } = await this.tokens.verifyAssertion(assertion, at);
    const outcome = await this.agents.execute(agentId, { type: 'agent.assertion_redeemed', at, jtiHash });
    if (!outcome.accepted) throw oauthError('invalid_grant', INVALID_ASSERTION);
    const scope = scopeFor(agentStates.claimed(outcome.snapshot));
    return this.tokenResponse(agentId, scope, at);
  }

  async startClaim(
    claimToken: string,
    email: string,
  ): Promise<{
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    expires_in: number;
    interval: number;
  }> {
    if (!EMAIL.test(email) || email.length > 254) throw invalidRequest('email must be an email address');
    const agent = await this.agentByClaimToken(claimToken);
    const at = this.clock.now();
    const userCode = newUserCode();
    const outcome = await this.agents.execute(agent.agent_id, {
      type: 'agent.claim_started',
      at,
      userCodeHash: this.userCodeHash(userCode),
      email,
    });
    if (!outcome.accepted) {
      throw oauthError(
        'invalid_grant',
        agentStates.claimed(outcome.snapshot)
          ? 'The agent is already claimed'
          : 'The claim token is unknown or revoked',
      );
    }
    const verificationUri = `${this.settings.issuer}/claim`;
    return {
      user_code: userCode,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(userCode)}`,
      expires_in: CLAIM_CODE_LIFETIME_MS / 1000,
      interval: CLAIM_POLL_INTERVAL_MS / 1000,
    };
  }

  /** The claim grant: RFC 8628 section 3.5 polling, answered from the agent's claim. */
  async pollClaim(claimToken: string): Promise<TokenResponse> {
    const agent = await this.agentByClaimToken(claimToken);
    const at = this.clock.now();
    let replacement: { jwt: string } | undefined;
    const outcome = await this.agents.execute(agent.agent_id, async ({ snapshot }) => {
      const claim = snapshot.context.claim;
      if (!agentStates.claiming(snapshot) || !claim) return undefined;
      if (pollOutcome(claim, at) !== 'granted') return { type: 'agent.claim_polled', at };
      const issued = await this.tokens.issueAssertion(agent.agent_id, true, at, 2);
      replacement = issued;
      return { type: 'agent.claim_polled', at, assertion: issued.record };
    });
    if (!outcome.accepted) throw oauthError('invalid_grant', 'No claim is in progress for this claim token');
    const result = outcome.snapshot.context.lastPoll!;
    if (result !== 'granted') throw oauthError(result, POLL_ERRORS[result]);
    return {
      ...(await this.tokenResponse(agent.agent_id, scopeFor(true), at)),
      identity_assertion: replacement!.jwt,
      claimed: true,
    };
  }

  /**
   * What the person is about to approve (RFC 8628 §5.4: show the device and what it asks for): the
   * agent and the email it asked to be bound to, while the code is outstanding.
   */
  async pendingClaim(
    userCode: string,
  ): Promise<{ agent_id: string; email: string; registered_at: number } | undefined> {
    const agent = await this.registry.byUserCodeHash(this.userCodeHash(userCode));
    if (!agent) return undefined;
    const { snapshot } = await this.agents.get(agent.agent_id);
    const email = snapshot.context.claim?.email;
    return email ? { agent_id: agent.agent_id, email, registered_at: agent.registered_at } : undefined;
  }

  /** The person's answer on the claim page. Returns the agent id decided on. */
  async decide(userCode: string, decision: Decision): Promise<string> {
    const hash = this.userCodeHash(userCode);
    const agent = await this.registry.byUserCodeHash(hash);
    if (!agent) throw oauthError('invalid_grant', 'This code is unknown or has expired');
    const at = this.clock.now();
    const type = decision === 'approve' ? 'agent.claim_approved' : 'agent.claim_declined';
    const outcome = await this.agents.execute(agent.agent_id, { type, at, userCodeHash: hash });
    if (!outcome.accepted) throw oauthError('invalid_grant', 'This code is unknown, already used or has expired');
    return agent.agent_id;
  }

  /** RFC 7009 section 2.2: the same answer whether or not the token was recognised. */
  async revoke(token: string): Promise<void> {
    const agent = await this.registry.byClaimTokenHash(sha256(token));
    if (!agent || agent.standing === 'revoked') return;
    await this.agents.execute(agent.agent_id, { type: 'agent.revoked', at: this.clock.now() });
  }

  /** An agent revoked by the one who proved control of it elsewhere (SCIM: a tenant that linked it by its claim token). */
  async revokeAgent(agentId: string): Promise<void> {
    const agent = await this.registry.byId(agentId);
    if (!agent || agent.standing === 'revoked') return;
    await this.agents.execute(agent.agent_id, { type: 'agent.revoked', at: this.clock.now() });
  }

  /** The resource agent access tokens open: who the bearer is, as the log says now (admitted by `resource`). */
  me(
    claims: AgentAccessClaims,
    agent: Loaded<typeof agentMachine>,
  ): { agent_id: string; claimed: boolean; owner_email?: string; scope: string; revoked: boolean } {
    const ctx = agent.snapshot.context;
    return {
      agent_id: claims.sub,
      claimed: ctx.claimedAt !== undefined,
      ...(ctx.ownerEmail ? { owner_email: ctx.ownerEmail } : {}),
      scope: claims.scope,
      revoked: agentStates.revoked(agent.snapshot),
    };
  }

  private async agentByClaimToken(claimToken: string) {
    const agent = await this.registry.byClaimTokenHash(sha256(claimToken));
    if (!agent || agent.standing === 'revoked')
      throw oauthError('invalid_grant', 'The claim token is unknown or revoked');
    return agent;
  }

  private async tokenResponse(agentId: string, scope: string, at: number): Promise<TokenResponse> {
    return {
      access_token: await this.tokens.issueAccessToken(agentId, scope, at),
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_LIFETIME_S,
      scope,
    };
  }
}
