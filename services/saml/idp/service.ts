import { ActorRuntime } from '../../actors/runtime.ts';
import type { Clock } from '../../clock.ts';
import type { EventLog } from '../../event-log.ts';
import { randomToken, sha256 } from '../../crypto/random.ts';
import type { DemoUser } from '../../oauth/demo-users.ts';
import { samlAuthnMachine, samlExchangeStates } from '../../../machines/saml-exchange.ts';
import { newSamlId } from '../build.ts';
import { NAMEID, STATUS } from '../constants.ts';
import type { ServiceProvider } from '../service-providers.ts';
import { passwordLogin, type SignInSessions } from '../../sessions/sign-in-sessions.ts';
import { checkAuthnRequest, OFFERED_CONTEXTS, type AuthnCheckDeps, type ReceivedMessage } from './authn-request.ts';
import { nameIdFor, statusResponse, successResponse, type IdpIdentity } from './response.ts';

/** Where the browser goes next after a step of single sign-on. */
export type SsoOutcome =
  | { kind: 'post'; url: string; field: 'SAMLResponse'; value: string; relayState?: string; newSession?: string }
  | { kind: 'login'; pendingId: string }
  | { kind: 'error'; check: string; reason: string };

export interface IdpUrls {
  entityId: string;
  sso: string;
  slo: string;
}

/**
 * The SAML IdP (SAML profiles §4.1): checks each AuthnRequest, signs people in with the demo users in
 * the sign-in session it shares with the OpenID Provider, and answers each SP with a Response built for it.
 */
export class SamlIdp {
  readonly authn: ActorRuntime<typeof samlAuthnMachine>;

  constructor(
    log: EventLog,
    private readonly clock: Clock,
    readonly identity: IdpIdentity,
    readonly urls: IdpUrls,
    private readonly deps: {
      users: ReadonlyMap<string, DemoUser>;
      serviceProvider: AuthnCheckDeps['serviceProvider'];
      useOnce: AuthnCheckDeps['useOnce'];
      sessions: SignInSessions;
    },
  ) {
    this.authn = ActorRuntime.of(log, samlAuthnMachine, 'saml-authn');
  }

  get sessions(): SignInSessions {
    return this.deps.sessions;
  }

  /** An AuthnRequest arrived over HTTP-Redirect or HTTP-POST; `session` is the IdP's cookie, if any. */
  async receive(message: ReceivedMessage, session: string | undefined, secure: boolean): Promise<SsoOutcome> {
    const at = this.clock.now();
    const checked = await checkAuthnRequest(message, {
      serviceProvider: this.deps.serviceProvider,
      ssoUrl: this.urls.sso,
      nowMs: at,
      useOnce: this.deps.useOnce,
    });
    const pendingId = randomToken(24);
    if (!checked.ok) {
      await this.authn.create(pendingId, {
        type: 'authn.refused',
        at,
        check: checked.check,
        reason: checked.reason,
        ...(checked.sp ? { sp: checked.sp.entityId } : {}),
        ...(checked.requestId ? { requestId: checked.requestId } : {}),
      });
      if (!checked.acsUrl) return { kind: 'error', check: checked.check, reason: checked.reason };
      return this.post(
        checked.acsUrl,
        statusResponse(
          this.identity,
          { acsUrl: checked.acsUrl, ...(checked.requestId ? { inResponseTo: checked.requestId } : {}) },
          checked.status,
          at,
        ),
        message.relayState,
      );
    }
    await this.authn.create(pendingId, {
      type: 'authn.requested',
      at,
      sp: checked.sp.entityId,
      requestId: checked.requestId,
      acsUrl: checked.acsUrl,
      binding: message.binding,
      ...(message.relayState !== undefined ? { relayState: message.relayState } : {}),
      nameIdFormat: checked.nameIdFormat,
      forceAuthn: checked.forceAuthn,
      isPassive: checked.isPassive,
      ...(checked.authnContext ? { authnContext: checked.authnContext } : {}),
      checks: checked.checks,
    });
    return this.continue(pendingId, session, secure);
  }

  /** A message refused before it could be read (its binding's encoding, a DEFLATE bomb): recorded all the same. */
  async refusedUnread(check: string, reason: string): Promise<void> {
    await this.authn.create(randomToken(24), { type: 'authn.refused', at: this.clock.now(), check, reason });
  }

  /** IdP-initiated SSO (SAML profiles §4.1.5): an unsolicited Response to the SP's default ACS URL. */
  async unsolicited(
    sp: ServiceProvider,
    session: string | undefined,
    secure: boolean,
    relayState?: string,
  ): Promise<SsoOutcome> {
    const pendingId = randomToken(24);
    await this.authn.create(pendingId, {
      type: 'authn.requested',
      at: this.clock.now(),
      sp: sp.entityId,
      acsUrl: sp.acs[0],
      binding: 'idp-initiated',
      ...(relayState !== undefined ? { relayState } : {}),
      nameIdFormat: sp.nameIdFormat,
      forceAuthn: false,
      isPassive: false,
      checks: ['issuer_known'],
    });
    return this.continue(pendingId, session, secure);
  }

  /** The context a login here gives (the sign-in session's vocabulary). */
  private achieved = passwordLogin;

  /** Answers a pending request from the session when it may (no ForceAuthn, strong enough), else asks for a login. */
  async continue(pendingId: string, session: string | undefined, secure: boolean): Promise<SsoOutcome> {
    const { snapshot } = await this.authn.get(pendingId);
    const request = snapshot.context.request;
    if (!samlExchangeStates.awaitingAnswer(snapshot) || !request)
      return { kind: 'error', check: 'request_state', reason: 'This sign-in has expired or already finished' };
    const wanted = request.authnContext;
    const rank = (c: string | undefined) => (c ? OFFERED_CONTEXTS.indexOf(c) : -1);
    if (wanted && rank(this.achieved(secure)) < rank(wanted))
      return this.refuse(pendingId, 'authn_context', `${wanted} needs this IdP over TLS`, {
        code: STATUS.responder,
        subCode: STATUS.noAuthnContext,
      });
    const current = await this.sessions.live(session);
    const strongEnough = current && (!wanted || rank(current.authnContext) >= rank(wanted));
    if (current && strongEnough && !request.forceAuthn) return this.answer(pendingId, session!, current.user);
    if (request.isPassive)
      return this.refuse(pendingId, 'is_passive', 'IsPassive: the person would have to sign in', {
        code: STATUS.responder,
        subCode: STATUS.noPassive,
      });
    return { kind: 'login', pendingId };
  }

  /** The login form was posted: a demo user and password (the OpenID Provider's users). */
  async login(
    pendingId: string,
    username: string,
    password: string,
    session: string | undefined,
    secure: boolean,
  ): Promise<SsoOutcome | undefined> {
    const user = this.deps.users.get(username);
    if (!user || user.password !== password) return undefined;
    const signed = await this.sessions.signedIn(session, user.id, this.achieved(secure), 'saml-idp');
    const outcome = await this.answer(pendingId, signed.cookie, user.id);
    return outcome.kind === 'post' && signed.isNew ? { ...outcome, newSession: signed.cookie } : outcome;
  }

  private async refuse(
    pendingId: string,
    check: string,
    reason: string,
    status: { code: string; subCode?: string },
  ): Promise<SsoOutcome> {
    const at = this.clock.now();
    const outcome = await this.authn.execute(pendingId, { type: 'authn.refused', at, check, reason });
    const request = outcome.snapshot.context.request!;
    const xml = statusResponse(
      this.identity,
      { acsUrl: request.acsUrl, ...(request.requestId ? { inResponseTo: request.requestId } : {}) },
      { ...status, message: reason },
      at,
    );
    return this.post(request.acsUrl, xml, request.relayState);
  }

  private async answer(pendingId: string, session: string, userId: string): Promise<SsoOutcome> {
    const at = this.clock.now();
    const { snapshot } = await this.authn.get(pendingId);
    const request = snapshot.context.request!;
    const sp = await this.deps.serviceProvider(request.sp);
    const user = this.deps.users.get(userId);
    const live = await this.sessions.live(session);
    if (!sp || !user || !live)
      return { kind: 'error', check: 'request_state', reason: 'The SP or the session is gone' };
    const previous = live.participants.find((p) => p.sp === sp.entityId);
    const nameId =
      previous && previous.nameIdFormat === request.nameIdFormat && request.nameIdFormat !== NAMEID.transient
        ? previous.nameId
        : nameIdFor(user, sp, request.nameIdFormat, this.identity.persistentSalt);
    const sessionIndex = previous?.sessionIndex ?? newSamlId();
    const xml = await successResponse(
      this.identity,
      {
        sp,
        acsUrl: request.acsUrl,
        ...(request.requestId ? { inResponseTo: request.requestId } : {}),
        user,
        nameId,
        nameIdFormat: request.nameIdFormat,
        sessionIndex,
        authnInstant: live.authnInstant,
        authnContext: request.authnContext ?? live.authnContext,
      },
      at,
    );
    const answered = await this.authn.execute(pendingId, {
      type: 'authn.answered',
      at,
      user: user.id,
      nameId,
      sessionIndex,
      encrypted: Boolean(sp.encryption),
    });
    if (!answered.accepted)
      return { kind: 'error', check: 'request_state', reason: 'This sign-in has already finished' };
    await this.sessions.runtime.execute(sha256(session), {
      type: 'session.sp_joined',
      at,
      sp: sp.entityId,
      nameId,
      nameIdFormat: request.nameIdFormat,
      sessionIndex,
    });
    return this.post(request.acsUrl, xml, request.relayState);
  }

  private post(url: string, xml: string, relayState: string | undefined): SsoOutcome {
    return {
      kind: 'post',
      url,
      field: 'SAMLResponse',
      value: Buffer.from(xml).toString('base64'),
      ...(relayState !== undefined ? { relayState } : {}),
    };
  }
}
