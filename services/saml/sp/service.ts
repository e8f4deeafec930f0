import { createPrivateKey, X509Certificate } from 'node:crypto';
import { ActorRuntime } from '../../actors/runtime.ts';
import type { Clock } from '../../clock.ts';
import type { EventLog } from '../../event-log.ts';
import { randomToken } from '../../crypto/random.ts';
import { samlLoginMachine, samlExchangeStates } from '../../../machines/saml-exchange.ts';
import { buildAuthnRequest, newSamlId } from '../build.ts';
import { BINDING } from '../constants.ts';
import { redirectUrl } from '../redirect-binding.ts';
import { signElement, type PemKeyPair } from '../signature.ts';
import { attr, parseXml } from '../xml.ts';
import { consumeResponse, type ConsumedLogin, type RefusedLogin, type TrustedIdp } from './consume.ts';

export interface SpIdentity {
  entityId: string;
  acsUrl: string;
  signing: PemKeyPair;
  decryptionKeys: string[];
}

export interface LoginOptions {
  binding: 'redirect' | 'post';
  relayState?: string;
  forceAuthn?: boolean;
  isPassive?: boolean;
  nameIdFormat?: string;
  authnContext?: string;
  /** A flow run waits for this login (it then returns to `{base}/runs/callback` with the verdict). */
  returnToRun?: boolean;
}

export type LoginStart =
  | { kind: 'redirect'; url: string; requestId: string }
  | { kind: 'post'; url: string; field: 'SAMLRequest'; value: string; relayState?: string; requestId: string };

/**
 * Our SAML SP (SAML profiles §4.1): sends signed AuthnRequests to an IdP and consumes its Responses at
 * the ACS with every check named; each login is a stream `saml-login:<request ID>` in the log.
 */
export class SamlSp {
  readonly logins: ActorRuntime<typeof samlLoginMachine>;

  constructor(
    log: EventLog,
    private readonly clock: Clock,
    readonly identity: SpIdentity,
    private readonly useOnce: (purpose: string, value: string) => Promise<boolean>,
  ) {
    this.logins = ActorRuntime.of(log, samlLoginMachine, 'saml-login');
  }

  /** A signed AuthnRequest to `idp`'s SSO endpoint, recorded before it leaves. */
  async startLogin(idp: TrustedIdp & { sso: string; foreign?: boolean }, options: LoginOptions): Promise<LoginStart> {
    const at = this.clock.now();
    const requestId = newSamlId();
    const xml = buildAuthnRequest({
      id: requestId,
      issueInstant: at,
      issuer: this.identity.entityId,
      destination: idp.sso,
      acsUrl: this.identity.acsUrl,
      ...(options.forceAuthn ? { forceAuthn: true } : {}),
      ...(options.isPassive ? { isPassive: true } : {}),
      ...(options.nameIdFormat ? { nameIdFormat: options.nameIdFormat } : {}),
      ...(options.authnContext ? { authnContext: options.authnContext } : {}),
    });
    const relayState = options.relayState ?? randomToken(12);
    await this.logins.create(requestId, {
      type: 'login.requested',
      at,
      idp: idp.entityId,
      requestId,
      relayState,
      binding: options.binding === 'redirect' ? BINDING.redirect : BINDING.post,
      ...(idp.foreign ? { idpSigning: idp.signing.map((c) => c.toString()) } : {}),
      ...(options.returnToRun ? { returnToRun: true } : {}),
    });
    if (options.binding === 'redirect')
      return {
        kind: 'redirect',
        requestId,
        url: redirectUrl(idp.sso, 'SAMLRequest', xml, {
          relayState,
          key: createPrivateKey(this.identity.signing.privateKeyPem),
        }),
      };
    const signed = signElement(xml, requestId, this.identity.signing);
    return {
      kind: 'post',
      requestId,
      url: idp.sso,
      field: 'SAMLRequest',
      value: Buffer.from(signed).toString('base64'),
      relayState,
    };
  }

  /**
   * The IdP a Response is checked against: the one its InResponseTo request was sent to (another IdP's
   * certificates were kept with the request), else ours (unsolicited Responses come only from ours).
   */
  async trustFor(xml: string, ours: TrustedIdp): Promise<TrustedIdp> {
    let requestId: string | undefined;
    try {
      requestId = attr(parseXml(xml).documentElement, 'InResponseTo');
    } catch {
      return ours;
    }
    if (!requestId) return ours;
    const { snapshot } = await this.logins.get(requestId);
    const request = samlExchangeStates.awaitingAnswer(snapshot) ? snapshot.context.request : undefined;
    return request?.idpSigning
      ? { entityId: request.idp, signing: request.idpSigning.map((pem) => new X509Certificate(pem)) }
      : ours;
  }

  /** Whether a flow run waits for the login this request started. */
  async returnsToRun(requestId: string | undefined): Promise<boolean> {
    return requestId ? Boolean((await this.logins.get(requestId)).snapshot.context.request?.returnToRun) : false;
  }

  /** The ACS: checks a Response from `idp` and records the login (or the check that refused it). */
  async consume(xml: string, idp: TrustedIdp, sessionHash?: string): Promise<ConsumedLogin | RefusedLogin> {
    const at = this.clock.now();
    const result = await consumeResponse(xml, {
      entityId: this.identity.entityId,
      acsUrl: this.identity.acsUrl,
      idp,
      decryptionKeys: this.identity.decryptionKeys,
      nowMs: at,
      requestOpen: async (requestId) => {
        const { snapshot } = await this.logins.get(requestId);
        return samlExchangeStates.awaitingAnswer(snapshot) && snapshot.context.request?.idp === idp.entityId;
      },
      useOnce: this.useOnce,
    });
    const stream = result.inResponseTo ?? (result.ok ? result.assertionId : randomToken(16));
    if (result.ok) {
      const { ok: _ok, inResponseTo: _irt, ...login } = result;
      await this.logins.execute(stream, {
        type: 'login.consumed',
        at,
        idp: idp.entityId,
        ...login,
        ...(sessionHash ? { sessionHash } : {}),
      });
    } else {
      // A refusal naming a request we never sent, or one already spent, is recorded on a stream of its own.
      const open = result.inResponseTo
        ? samlExchangeStates.awaitingAnswer((await this.logins.get(result.inResponseTo)).snapshot)
        : false;
      await this.logins.execute(open ? stream : randomToken(16), {
        type: 'login.refused',
        at,
        check: result.check,
        reason: result.reason,
      });
    }
    return result;
  }
}
