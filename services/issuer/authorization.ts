import { offerOf } from './request-rules.ts';
import { issuanceStates } from '../../machines/issuance.ts';
import { interactionMachine, interactionPage, type AuthorizationRequest } from '../../machines/interaction.ts';
import { isS256Challenge } from '../oauth/pkce.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import { oauthError, invalidRequest } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import { OFFER_TTL_S } from './settings.ts';
import type { IssuerService, PresentedRequest } from './service.ts';
import { isLoopbackHost } from '../loopback.ts';

/**
 * The authorization code flow of the issuer's authorization server (decisions section 8): PAR is
 * required (RFC 9126), the authorization endpoint takes only `client_id` and `request_uri`, the person
 * signs in and consents through the same interaction as the other authorization servers, and the
 * response carries `iss` (RFC 9207). Any client_id may ask (an unattested wallet is a public client).
 */
const PAR_TTL_S = 90;
const CODE_TTL_MS = 60_000;
const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** The issuance stream a pushed request belongs to: its request_uri names it (`<stream>.<secret>`). */
export const streamOfRequestUri = (requestUri: string) =>
  requestUri.startsWith(REQUEST_URI_PREFIX) ? offerOf(requestUri.slice(REQUEST_URI_PREFIX.length)) : undefined;
const INTERACTION_TTL_MS = 600_000;
const CLIENT_ID = /^[\x21-\x7e]{1,200}$/;

const hash = (value: string) => `[redacted sha256:${sha256(value).slice(0, 22)}]`;
const streamOf = (value: string) =>
  /^[A-Za-z0-9_-]{8,64}\.[A-Za-z0-9_-]{16,}$/.test(value) ? value.split('.')[0] : undefined;

/** https, or http to a loopback host (RFC 8252 §7.3). */
function acceptableRedirectUri(value: string | undefined): value is string {
  if (!value) return false;
  try {
    const url = new URL(value);
    if (url.hash) return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}

/**
 * `authorization_details` of type openid_credential, or configurations named by scope; with neither,
 * an issuer_state request asks for what its offer offers.
 */
function requestedConfigurations(
  form: Record<string, string | undefined>,
  issuer: IssuerService,
  offered?: string[],
): { ids: string[]; details: boolean } {
  const byScope = new Map([...issuer.settings.configurations.values()].map((c) => [c.scope, c.id]));
  if (form.authorization_details !== undefined) {
    let details: unknown;
    try {
      details = JSON.parse(form.authorization_details);
    } catch {
      throw oauthError('invalid_authorization_details', 'authorization_details is not JSON');
    }
    if (!Array.isArray(details) || details.length === 0)
      throw oauthError('invalid_authorization_details', 'authorization_details must be a non-empty array');
    const ids = details.map((d) => {
      const detail = d as { type?: unknown; credential_configuration_id?: unknown };
      if (
        detail?.type !== 'openid_credential' ||
        typeof detail.credential_configuration_id !== 'string' ||
        !issuer.settings.configurations.has(detail.credential_configuration_id)
      ) {
        throw oauthError(
          'invalid_authorization_details',
          'Each entry needs type openid_credential and a known credential_configuration_id',
        );
      }
      return detail.credential_configuration_id;
    });
    return { ids: [...new Set(ids)], details: true };
  }
  if (!form.scope && offered) return { ids: offered, details: false };
  const ids = (form.scope ?? '')
    .split(' ')
    .filter(Boolean)
    .map((s) => byScope.get(s));
  if (ids.length === 0 || ids.some((id) => id === undefined))
    throw oauthError('invalid_scope', 'Ask for credential configurations by authorization_details or by their scopes');
  return { ids: ids as string[], details: false };
}

export class IssuerAuthorization {
  readonly interactions: ActorRuntime<typeof interactionMachine>;

  constructor(
    log: EventLog,
    private readonly issuer: IssuerService,
  ) {
    this.interactions = ActorRuntime.of(log, interactionMachine, 'interaction');
  }

  private get now() {
    return this.issuer.clock.now();
  }

  /** RFC 9126 §2: the pushed authorization request, its rules one by one. */
  async par(
    form: Record<string, string | undefined>,
    request: PresentedRequest,
  ): Promise<{ request_uri: string; expires_in: number }> {
    // Client attestation first: a request that fails later has still spent its PoP jti.
    const attested = await this.issuer.attestedClient(request);
    if (form.request !== undefined || form.request_uri !== undefined)
      throw invalidRequest('Request objects and request_uri are not accepted at the PAR endpoint');
    if (!form.client_id || !CLIENT_ID.test(form.client_id)) throw oauthError('invalid_client', 'client_id is required');
    if (attested && attested.clientId !== form.client_id)
      throw oauthError('invalid_client', 'client_id differs from the sub of the client attestation');
    if (form.response_type !== 'code') throw oauthError('unsupported_response_type', 'response_type must be code');
    if (!acceptableRedirectUri(form.redirect_uri))
      throw invalidRequest('redirect_uri must be https, or http on a loopback host, without a fragment');
    if (form.code_challenge_method !== 'S256' || !isS256Challenge(form.code_challenge))
      throw invalidRequest('PKCE with code_challenge_method S256 is required');
    const proof = await this.issuer.dpop(request);
    if (form.dpop_jkt !== undefined && proof && proof.jkt !== form.dpop_jkt)
      throw oauthError('invalid_dpop_proof', 'dpop_jkt differs from the key of the DPoP proof');
    const dpopJkt = form.dpop_jkt ?? proof?.jkt;
    const at = this.now;
    // With issuer_state the request belongs to that offer's stream; without, it starts one of its own.
    let streamId: string;
    let offered: string[] | undefined;
    if (form.issuer_state !== undefined) {
      const offerId = streamOf(form.issuer_state);
      const loaded = offerId ? await this.issuer.offers.get(offerId) : undefined;
      const c = loaded?.snapshot.context;
      if (!offerId || !c || c.issuerStateHash !== hash(form.issuer_state) || c.expiresAt <= at)
        throw invalidRequest('issuer_state is unknown or its offer has expired');
      offered = c.configurationIds;
      streamId = offerId;
    } else {
      streamId = randomToken(12);
    }
    const { ids, details } = requestedConfigurations(form, this.issuer, offered);
    if (offered && ids.some((id) => !offered.includes(id)))
      throw oauthError('invalid_authorization_details', 'The request asks for configurations the offer does not offer');
    this.issuer.requireHaipClient(ids, attested, proof);
    const requestUri = `${streamId}.${randomToken(24)}`;
    const outcome = await this.issuer.offers.execute(streamId, {
      type: 'issuance.authorization_requested',
      at,
      client_id: form.client_id,
      redirect_uri: form.redirect_uri,
      code_challenge: form.code_challenge,
      configuration_ids: ids,
      authorization_details: details,
      ...(form.state !== undefined ? { state: form.state } : {}),
      ...(dpopJkt ? { dpop_jkt: dpopJkt } : {}),
      request_uri_hash: hash(requestUri),
      request_expires_at: at + PAR_TTL_S * 1000,
      ...(attested ? { attested: true } : {}),
      ...(form.issuer_state === undefined ? { expires_at: at + OFFER_TTL_S * 1000 } : {}),
    });
    if (!outcome.accepted) throw invalidRequest('This offer was already requested for authorization');
    return { request_uri: `${REQUEST_URI_PREFIX}${requestUri}`, expires_in: PAR_TTL_S };
  }

  /** The authorization endpoint: only client_id and request_uri; the request_uri is used once. */
  async authorize(query: Record<string, string | undefined>): Promise<{ interactionId: string }> {
    const extra = Object.keys(query).filter((k) => k !== 'client_id' && k !== 'request_uri');
    if (extra.length > 0)
      throw invalidRequest(
        `After PAR the authorization request carries only client_id and request_uri (not ${extra.join(', ')})`,
      );
    const value = query.request_uri?.startsWith(REQUEST_URI_PREFIX)
      ? query.request_uri.slice(REQUEST_URI_PREFIX.length)
      : undefined;
    const streamId = value ? streamOf(value) : undefined;
    const loaded = streamId ? await this.issuer.offers.get(streamId) : undefined;
    const par = loaded?.snapshot.context.par;
    if (
      !streamId ||
      !loaded ||
      !par ||
      !issuanceStates.authorizationRequested(loaded.snapshot) ||
      par.requestUriHash !== hash(value!) ||
      par.requestExpiresAt <= this.now
    ) {
      throw invalidRequest('request_uri is unknown, expired or already used');
    }
    if (query.client_id !== par.clientId)
      throw invalidRequest('client_id differs from the pushed authorization request');
    const interactionId = `${streamId}.${randomToken(16)}`;
    const scope = loaded.snapshot.context.configurationIds
      .map((id) => this.issuer.settings.configurations.get(id)!.scope)
      .join(' ');
    const authorization: AuthorizationRequest = {
      issuer: this.issuer.settings.issuer,
      clientId: par.clientId,
      redirectUri: par.redirectUri,
      responseMode: 'query',
      scope,
      ...(par.state !== undefined ? { state: par.state } : {}),
      codeChallenge: par.codeChallenge,
      codeChallengeMethod: 'S256',
      expiresAt: this.now + INTERACTION_TTL_MS,
    };
    const started = await this.issuer.offers.execute(streamId, {
      type: 'issuance.authorization_started',
      at: this.now,
      interaction_id: interactionId,
    });
    if (!started.accepted) throw invalidRequest('request_uri is unknown, expired or already used');
    await this.interactions.create(interactionId, { type: 'interaction.started', at: this.now, ...authorization });
    return { interactionId };
  }

  /** The interaction for its pages, or undefined when unknown, finished or expired. */
  async view(id: string) {
    const { snapshot } = await this.interactions.get(id);
    const request = snapshot.context.request;
    if (!request || request.issuer !== this.issuer.settings.issuer || this.now >= request.expiresAt) return undefined;
    const step = interactionPage(snapshot);
    if (!step) return undefined;
    return { step, request, sub: snapshot.context.sub };
  }

  async login(id: string, sub: string): Promise<boolean> {
    return (await this.interactions.execute(id, { type: 'interaction.authenticated', at: this.now, sub })).accepted;
  }

  /** Consent: the code (or access_denied) goes back to the redirect URI with state and iss. */
  async decide(id: string, approve: boolean): Promise<string> {
    const at = this.now;
    const streamId = streamOf(id);
    const code = `${streamId}.${randomToken(32)}`;
    const outcome = await this.interactions.execute(
      id,
      approve ? { type: 'interaction.consented', at, codeHash: sha256(code) } : { type: 'interaction.declined', at },
    );
    if (!outcome.accepted || !streamId) throw invalidRequest('This sign-in has expired or already finished');
    const { request, sub } = outcome.snapshot.context;
    const target = new URL(request!.redirectUri);
    if (request!.state !== undefined) target.searchParams.set('state', request!.state);
    target.searchParams.set('iss', this.issuer.settings.issuer);
    if (!approve) {
      await this.issuer.offers.execute(streamId, { type: 'issuance.authorization_declined', at });
      target.searchParams.set('error', 'access_denied');
      return target.href;
    }
    await this.issuer.offers.execute(streamId, {
      type: 'issuance.code_issued',
      at,
      code_hash: hash(code),
      sub: sub!,
      code_expires_at: at + CODE_TTL_MS,
    });
    target.searchParams.set('code', code);
    return target.href;
  }
}
