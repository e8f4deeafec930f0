import type { Clock } from '../../clock.ts';
import { samlExchangeStates } from '../../../machines/saml-exchange.ts';
import { sha256 } from '../../crypto/random.ts';
import { sameText } from '../../crypto/compare.ts';
import { buildLogoutRequest, buildLogoutResponse, newSamlId, type StatusFields } from '../build.ts';
import { STATUS } from '../constants.ts';
import { checkLogoutMessage, outgoing, type Outgoing } from '../logout-messages.ts';
import type { ReceivedMessage } from '../message-signature.ts';
import type { Endpoint } from '../metadata.ts';
import type { TrustedIdp } from './consume.ts';
import type { SamlSp } from './service.ts';

export type SpLogoutOutcome =
  | (Outgoing & { endSession: boolean })
  | { kind: 'done'; partial: boolean; status: string; endSession: true }
  | { kind: 'error'; check: string; reason: string };

const error = (check: string, reason: string): SpLogoutOutcome => ({ kind: 'error', check, reason });

/** The SP session cookie: the login's stream id and a secret whose hash the login event keeps. */
export const spSessionCookie = (stream: string, secret: string) => `${stream}.${secret}`;

/**
 * Single logout at our SP (SAML profiles §4.4) with our IdP: the person signs out here (a signed
 * LogoutRequest to the IdP, whose LogoutResponse ends the login), or the IdP's signed LogoutRequest
 * ends it and is answered with a signed LogoutResponse.
 */
export class SamlSpLogout {
  constructor(
    private readonly sp: SamlSp,
    private readonly clock: Clock,
    private readonly idp: TrustedIdp & { slo: Endpoint[] },
    private readonly sloUrl: string,
    private readonly useOnce: (purpose: string, value: string) => Promise<boolean>,
  ) {}

  /** The consumed login a cookie names, when its secret matches. */
  private async loginOf(cookie: string | undefined) {
    const [stream, secret] = (cookie ?? '').split('.');
    if (!stream || !secret) return undefined;
    const { snapshot } = await this.sp.logins.get(stream);
    const hash = snapshot.context.login?.sessionHash;
    return hash && sameText(sha256(secret), hash) ? { stream, snapshot } : undefined;
  }

  /** The person signs out at our SP. */
  async start(cookie: string | undefined): Promise<SpLogoutOutcome> {
    const found = await this.loginOf(cookie);
    const login = found && samlExchangeStates.consumed(found.snapshot) ? found.snapshot.context.login : undefined;
    if (!found || !login) return error('session', 'There is no session at this SP to sign out of');
    const id = newSamlId();
    const xml = buildLogoutRequest({
      id,
      issueInstant: this.clock.now(),
      issuer: this.sp.identity.entityId,
      destination: this.idp.slo[0]!.url,
      nameId: { value: login.nameId, format: login.nameIdFormat, spNameQualifier: this.sp.identity.entityId },
      ...(login.sessionIndex ? { sessionIndex: login.sessionIndex } : {}),
    });
    await this.sp.logins.execute(found.stream, { type: 'logout.sent', at: this.clock.now(), requestId: id });
    return {
      ...outgoing(this.idp.slo, undefined, 'SAMLRequest', xml, id, this.sp.identity.signing)!,
      endSession: false,
    };
  }

  /** A LogoutRequest or LogoutResponse from our IdP arrived at `{base}/saml/sp/slo`. */
  async receive(message: ReceivedMessage, cookie: string | undefined): Promise<SpLogoutOutcome> {
    const checked = await checkLogoutMessage(message, {
      peer: async (issuer) => (issuer === this.idp.entityId ? this.idp : undefined),
      who: 'the IdP',
      endpoint: this.sloUrl,
      nowMs: this.clock.now(),
      useOnce: this.useOnce,
    });
    if (!checked.ok) return error(checked.check, checked.reason);
    const { fields } = checked;
    const found = await this.loginOf(cookie);
    const at = this.clock.now();
    if (fields.kind === 'LogoutResponse') {
      if (
        !found ||
        !samlExchangeStates.loggingOut(found.snapshot) ||
        found.snapshot.context.logoutRequestId !== fields.inResponseTo
      )
        return error('in_response_to', 'This LogoutResponse answers no LogoutRequest of this session');
      const partial = fields.subStatus === STATUS.partialLogout || fields.status !== STATUS.success;
      await this.sp.logins.execute(found.stream, { type: 'login.ended', at, initiator: 'sp', partial });
      return { kind: 'done', partial, status: fields.status ?? '', endSession: true };
    }
    const login = found && samlExchangeStates.consumed(found.snapshot) ? found.snapshot.context.login : undefined;
    const matches =
      login &&
      login.nameId === fields.nameId &&
      (fields.sessionIndex === undefined || fields.sessionIndex === login.sessionIndex);
    const status: StatusFields = matches
      ? { code: STATUS.success }
      : {
          code: STATUS.requester,
          subCode: STATUS.unknownPrincipal,
          message: 'No session of this principal at this SP',
        };
    if (matches)
      await this.sp.logins.execute(found!.stream, { type: 'login.ended', at, initiator: 'idp', partial: false });
    const id = newSamlId();
    const xml = buildLogoutResponse({
      id,
      issueInstant: at,
      issuer: this.sp.identity.entityId,
      destination: this.idp.slo[0]!.url,
      inResponseTo: fields.id,
      status,
    });
    const answer = outgoing(
      this.idp.slo,
      message.binding,
      'SAMLResponse',
      xml,
      id,
      this.sp.identity.signing,
      message.relayState,
    );
    return answer
      ? { ...answer, endSession: Boolean(matches) }
      : error('slo_endpoint', 'The IdP has no SingleLogoutService');
  }
}
