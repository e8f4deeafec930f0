import type { Clock } from '../../clock.ts';
import { signInSessionStates } from '../../../machines/sign-in-session.ts';
import { sha256 } from '../../crypto/random.ts';
import { buildLogoutRequest, buildLogoutResponse, newSamlId, type StatusFields } from '../build.ts';
import { STATUS } from '../constants.ts';
import type { ReceivedMessage } from '../message-signature.ts';
import { checkLogoutMessage, outgoing, type LogoutFields, type Outgoing } from '../logout-messages.ts';
import type { ServiceProvider } from '../service-providers.ts';
import type { SamlIdp } from './service.ts';

/** Where single logout sends the browser next. */
export type LogoutOutcome =
  | (Outgoing & { endSession?: boolean })
  /** Every SP answered; `returnTo` is where RP-initiated logout at the OpenID Provider asked to go then. */
  | { kind: 'done'; failed: string[]; endSession: true; returnTo?: string }
  | { kind: 'error'; check: string; reason: string };

const error = (check: string, reason: string): LogoutOutcome => ({ kind: 'error', check, reason });

/**
 * Single logout at the IdP (SAML profiles §4.4): a LogoutRequest from an SP of the session, or the
 * person at the IdP, starts it; every other SP of the session is sent a signed LogoutRequest in turn
 * (front channel); their LogoutResponses come back here; the initiator gets Success, with the
 * second-level PartialLogout when one failed or never answered (SAML core §3.7.3.2).
 */
export class SamlIdpLogout {
  constructor(
    private readonly idp: SamlIdp,
    private readonly clock: Clock,
    private readonly serviceProvider: (entityId: string) => Promise<ServiceProvider | undefined>,
    private readonly useOnce: (purpose: string, value: string) => Promise<boolean>,
  ) {}

  /** A LogoutRequest or LogoutResponse arrived at `{base}/saml/idp/slo`. */
  async receive(message: ReceivedMessage, cookie: string | undefined): Promise<LogoutOutcome> {
    // SAML profiles §4.4.4.1 and §4.4.4.2: logout messages are signed.
    const checked = await checkLogoutMessage(message, {
      peer: async (issuer) => (issuer ? this.serviceProvider(issuer) : undefined),
      who: 'the SP',
      endpoint: this.idp.urls.slo,
      nowMs: this.clock.now(),
      useOnce: this.useOnce,
    });
    if (!checked.ok) return error(checked.check, checked.reason);
    const { fields, peer: sp } = checked;
    return fields.kind === 'LogoutRequest'
      ? this.fromSp(sp, fields, message, cookie)
      : this.answered(sp, fields, cookie);
  }

  /**
   * The person signs out at the IdP, or at the OpenID Provider (RP-initiated logout, which says where to
   * go once done): every SP of the session is told.
   */
  async start(cookie: string | undefined, returnTo?: string): Promise<LogoutOutcome> {
    const live = await this.idp.sessions.live(cookie);
    if (!live) return error('session', 'There is no session at this IdP to sign out of');
    await this.begin(
      cookie!,
      live.participants.map((p) => p.sp),
      returnTo !== undefined ? { returnTo } : {},
    );
    return this.advance(cookie!);
  }

  /** The SP now awaited never answered (its page failed): it counts as failed and logout goes on. */
  async skip(cookie: string | undefined): Promise<LogoutOutcome> {
    const { snapshot } = await this.idp.sessions.runtime.get(sha256(cookie ?? ''));
    const current = signInSessionStates.loggingOut(snapshot) ? snapshot.context.logout?.pending[0] : undefined;
    if (!current) return error('session', 'No single logout is waiting for an SP');
    await this.idp.sessions.runtime.execute(sha256(cookie!), {
      type: 'logout.sp_answered',
      at: this.clock.now(),
      sp: current,
      ok: false,
    });
    return this.advance(cookie!);
  }

  private async fromSp(
    sp: ServiceProvider,
    request: LogoutFields,
    message: ReceivedMessage,
    cookie: string | undefined,
  ): Promise<LogoutOutcome> {
    const live = await this.idp.sessions.live(cookie);
    const participant = live?.participants.find((p) => p.sp === sp.entityId);
    const matches =
      participant &&
      participant.nameId === request.nameId &&
      (request.sessionIndex === undefined || request.sessionIndex === participant.sessionIndex);
    if (!matches) {
      const status = {
        code: STATUS.requester,
        subCode: STATUS.unknownPrincipal,
        message: 'No session of this principal with this SP',
      };
      return (
        this.respond(sp, request.id, message.binding, status, message.relayState) ??
        error('slo_endpoint', 'The SP has no SingleLogoutService')
      );
    }
    await this.begin(
      cookie!,
      live!.participants.map((p) => p.sp).filter((entity) => entity !== sp.entityId),
      {
        initiator: sp.entityId,
        requestId: request.id,
        binding: message.binding,
        ...(message.relayState !== undefined ? { relayState: message.relayState } : {}),
      },
    );
    return this.advance(cookie!);
  }

  private async answered(
    sp: ServiceProvider,
    response: LogoutFields,
    cookie: string | undefined,
  ): Promise<LogoutOutcome> {
    const { snapshot } = await this.idp.sessions.runtime.get(sha256(cookie ?? ''));
    const logout = signInSessionStates.loggingOut(snapshot) ? snapshot.context.logout : undefined;
    const expected = logout?.requests.find(([entity]) => entity === sp.entityId)?.[1];
    if (!logout?.pending.includes(sp.entityId) || !expected || response.inResponseTo !== expected)
      return error('in_response_to', 'This LogoutResponse answers no LogoutRequest this session is waiting for');
    await this.idp.sessions.runtime.execute(sha256(cookie!), {
      type: 'logout.sp_answered',
      at: this.clock.now(),
      sp: sp.entityId,
      ok: response.status === STATUS.success,
    });
    return this.advance(cookie!);
  }

  private async begin(
    cookie: string,
    others: string[],
    initiator: { initiator?: string; requestId?: string; binding?: string; relayState?: string; returnTo?: string },
  ) {
    const reachable: string[] = [];
    for (const entity of others) if ((await this.serviceProvider(entity))?.slo.length) reachable.push(entity);
    await this.idp.sessions.runtime.execute(sha256(cookie), {
      type: 'logout.started',
      at: this.clock.now(),
      ...initiator,
      pending: reachable,
      requests: reachable.map((entity) => [entity, newSamlId()]),
    });
  }

  /** Sends the next SP its LogoutRequest, or ends the session and answers the initiator. */
  private async advance(cookie: string): Promise<LogoutOutcome> {
    const at = this.clock.now();
    const { snapshot } = await this.idp.sessions.runtime.get(sha256(cookie));
    const { logout, participants } = snapshot.context;
    if (!logout) return error('session', 'No single logout is under way');
    const next = logout.pending[0];
    if (next) {
      const sp = await this.serviceProvider(next);
      const participant = participants.find((p) => p.sp === next)!;
      const id = logout.requests.find(([entity]) => entity === next)![1];
      const xml = buildLogoutRequest({
        id,
        issueInstant: at,
        issuer: this.idp.urls.entityId,
        destination: sp!.slo[0].url,
        nameId: { value: participant.nameId, format: participant.nameIdFormat, spNameQualifier: next },
        sessionIndex: participant.sessionIndex,
      });
      return outgoing(sp!.slo, undefined, 'SAMLRequest', xml, id, this.idp.identity.signing)!;
    }
    const failed = logout.failed;
    await this.idp.sessions.runtime.execute(sha256(cookie), { type: 'session.ended', at, partial: failed.length > 0 });
    const initiator = logout.initiator ? await this.serviceProvider(logout.initiator) : undefined;
    const done = {
      kind: 'done' as const,
      failed,
      endSession: true as const,
      ...(logout.returnTo !== undefined ? { returnTo: logout.returnTo } : {}),
    };
    if (!initiator || !logout.requestId) return done;
    const status: StatusFields = failed.length
      ? { code: STATUS.success, subCode: STATUS.partialLogout, message: `Not signed out of: ${failed.join(', ')}` }
      : { code: STATUS.success };
    const answer = this.respond(initiator, logout.requestId, logout.binding, status, logout.relayState);
    return answer ? { ...answer, endSession: true } : done;
  }

  /** A signed LogoutResponse to `sp`'s SingleLogoutService, over the binding its request used when it can. */
  private respond(
    sp: ServiceProvider,
    inResponseTo: string,
    binding: string | undefined,
    status: StatusFields,
    relayState?: string,
  ): Outgoing | undefined {
    const id = newSamlId();
    const destination = (sp.slo.find((e) => e.binding === binding) ?? sp.slo[0])?.url;
    if (!destination) return undefined;
    const xml = buildLogoutResponse({
      id,
      issueInstant: this.clock.now(),
      issuer: this.idp.urls.entityId,
      destination,
      inResponseTo,
      status,
    });
    return outgoing(sp.slo, binding, 'SAMLResponse', xml, id, this.idp.identity.signing, relayState);
  }
}
