import { invalidRequest, oauthError } from '../../errors.ts';
import type { ExchangeRecorder } from '../exchange.ts';
import type { WalletSession } from '../sessions.ts';
import { AuthorizationCodeIssuance } from './authorization.ts';
import { receiveCredentials } from './credential-flow.ts';
import { InvalidCredential } from './credentials.ts';
import {
  checkIssuerIdentifier,
  configurationsOf,
  discoverIssuer,
  discoverOpenIdProvider,
  type IssuerView,
} from './discovery.ts';
import { PRE_AUTHORIZED_GRANT, resolveOffer, type TxCode } from './offer.ts';
import { errorToken, withExchanges } from './outcome.ts';
import { IssuanceRuntime, needsKeyAttestation, type IssuanceDeps } from './runtime.ts';
import { importRawCredential } from './store.ts';
import { expectOk } from './wire.ts';

export type { IssuanceDeps } from './runtime.ts';

export interface IssueBody {
  credential_configuration_id?: string;
  credential_format?: string;
  tx_code?: boolean | string;
  deferred?: boolean;
  force?: boolean;
}
export interface ImportBody {
  offer?: unknown;
  credential?: unknown;
  credential_issuer?: string;
  credential_configuration_id?: string;
  format?: string;
  discovery_url?: string;
  resource_endpoint?: string;
  scope?: string;
  tx_code?: string;
}

/** The credential issuance side of the wallet harness (spec wallet OID4VCI behaviours 1-12, decisions section 10). */
export class WalletIssuance {
  private readonly rt: IssuanceRuntime;
  private readonly authorization: AuthorizationCodeIssuance;

  constructor(deps: IssuanceDeps) {
    this.rt = new IssuanceRuntime(deps);
    this.authorization = new AuthorizationCodeIssuance(this.rt);
  }

  /** `GET /api/oid4vci/callback` (see AuthorizationCodeIssuance.callback). */
  callback(...args: Parameters<AuthorizationCodeIssuance['callback']>): Promise<string> {
    return this.authorization.callback(...args);
  }

  async issue(session: WalletSession, body: IssueBody, app: string): Promise<Record<string, unknown>> {
    const base = this.rt.deps.settings.issuerBaseUrl;
    const credentialIssuer = `${base}/oid4vci`;
    const recorder = await this.rt.deps.exchanges.start('issuance', session.id, credentialIssuer);
    try {
      const plain = this.rt.plainWire(recorder);
      const view = await discoverIssuer(plain, credentialIssuer);
      const configurationId = this.chooseConfiguration(view, body);
      this.rt.requireHaipMaterial(view, [configurationId]);
      const cached = [...session.credentials.values()].find(
        (c) => c.credential_configuration_id === configurationId && !c.batch_secondary,
      );
      if (cached && !body.force)
        return {
          status: 'issued',
          credential_source: 'cached',
          credential_ids: [cached.credential_id],
          active_credential_id: session.activeCredentialId,
          ...recorder.view(),
        };
      const created = expectOk(
        await plain.call('issuer_offer', `${credentialIssuer}/offers`, {
          json: {
            credential_configuration_ids: [configurationId],
            ...(body.tx_code ? { tx_code: true } : {}),
            ...(body.deferred ? { deferred: true } : {}),
          },
        }),
        'Creating an offer at the issuer',
        [201],
      ).json;
      const txCode =
        typeof body.tx_code === 'string'
          ? body.tx_code
          : typeof created.tx_code_value === 'string'
            ? created.tx_code_value
            : undefined;
      const result = await this.fromOffer(
        session,
        recorder,
        created.credential_offer ?? { credential_offer_uri: created.credential_offer_uri },
        txCode,
        app,
        view,
      );
      return {
        ...result,
        credential_source: 'issuer',
        ...(typeof created.status_uri === 'string' ? { issuer_status_uri: created.status_uri } : {}),
      };
    } catch (error) {
      await recorder.failed(errorToken(error), error instanceof InvalidCredential ? error.check : undefined);
      throw withExchanges(error, recorder);
    }
  }

  /** A configuration by id, or the first of the wanted format (HAIP ones only when HAIP material is on). */
  private chooseConfiguration(view: IssuerView, body: IssueBody): string {
    const configurations = configurationsOf(view.metadata);
    if (body.credential_configuration_id !== undefined) {
      if (!configurations.has(body.credential_configuration_id))
        throw invalidRequest(`The issuer offers no configuration ${body.credential_configuration_id}`);
      return body.credential_configuration_id;
    }
    const format = body.credential_format ?? this.rt.deps.settings.defaultCredentialFormat;
    const found = [...configurations].find(
      ([, c]) => c.format === format && (this.rt.deps.settings.haipEnabled || !needsKeyAttestation(c)),
    );
    if (!found) throw invalidRequest(`The issuer offers no configuration of format ${format}`);
    return found[0];
  }

  async import(session: WalletSession, body: ImportBody, app: string): Promise<Record<string, unknown>> {
    const given = ['offer', 'credential', 'credential_issuer', 'discovery_url'].filter(
      (k) => (body as Record<string, unknown>)[k] !== undefined,
    );
    if (given.length !== 1)
      throw invalidRequest('Send exactly one of offer, credential, credential_issuer, discovery_url');
    const source =
      typeof body.credential_issuer === 'string'
        ? body.credential_issuer
        : typeof body.discovery_url === 'string'
          ? body.discovery_url
          : typeof body.offer === 'string'
            ? body.offer.slice(0, 200)
            : given[0];
    const recorder = await this.rt.deps.exchanges.start('issuance', session.id, source);
    try {
      if (body.offer !== undefined) return await this.fromOffer(session, recorder, body.offer, body.tx_code, app);
      if (body.credential !== undefined) return await importRawCredential(this.rt, session, recorder, body);
      if (body.credential_issuer !== undefined) return await this.walletInitiated(session, recorder, body, app);
      return await this.protectedResource(session, recorder, body, app);
    } catch (error) {
      await recorder.failed(errorToken(error), error instanceof InvalidCredential ? error.check : undefined);
      throw withExchanges(error, recorder);
    }
  }

  /** An offer (pre-authorized code, or authorization code with issuer_state). */
  /** `known`: issuer metadata this exchange already fetched and checked, reused when the offer names the same issuer and no other AS. */
  private async fromOffer(
    session: WalletSession,
    recorder: ExchangeRecorder,
    input: unknown,
    txCode: string | undefined,
    app: string,
    known?: IssuerView,
  ): Promise<Record<string, unknown>> {
    const offer = await resolveOffer(this.rt.plainWire(recorder), input);
    const preAuthorized = offer.grants?.[PRE_AUTHORIZED_GRANT];
    if (preAuthorized?.tx_code && !txCode) {
      const error = oauthError(
        'tx_code_required',
        'This offer needs the transaction code sent to the person (tx_code)',
      );
      error.extra = { tx_code: txCodeDescription(preAuthorized.tx_code) };
      throw error;
    }
    const namedServer = preAuthorized?.authorization_server ?? offer.grants?.authorization_code?.authorization_server;
    const reusable =
      known &&
      known.credentialIssuer === offer.credential_issuer &&
      (namedServer === undefined || namedServer === known.authorizationServer);
    const discovery = reusable
      ? known
      : await discoverIssuer(this.rt.plainWire(recorder), offer.credential_issuer, namedServer);
    this.rt.requireHaipMaterial(discovery, offer.credential_configuration_ids);
    const wire = await this.rt.wire(recorder, discovery.asMetadata);
    if (!preAuthorized)
      return this.authorization.authorize(
        session,
        wire,
        discovery,
        offer.credential_configuration_ids,
        app,
        offer.grants?.authorization_code?.issuer_state,
      );
    const token = await this.rt.token(wire, discovery, {
      grant_type: PRE_AUTHORIZED_GRANT,
      'pre-authorized_code': preAuthorized['pre-authorized_code'],
      ...(txCode ? { tx_code: txCode } : {}),
    });
    return receiveCredentials(this.rt, session, wire, discovery, token, offer.credential_configuration_ids, {
      anonymous: !this.rt.deps.settings.haipEnabled,
    });
  }

  /** Behaviour 12: from an issuer id or its metadata URL, list the configurations, then authorize the chosen one. */
  private async walletInitiated(
    session: WalletSession,
    recorder: ExchangeRecorder,
    body: ImportBody,
    app: string,
  ): Promise<Record<string, unknown>> {
    let issuer = checkIssuerIdentifier(body.credential_issuer);
    const marker = '/.well-known/openid-credential-issuer';
    if (issuer.includes('/.well-known/') && !issuer.includes(marker))
      throw invalidRequest(
        'credential_issuer is an issuer identifier or its /.well-known/openid-credential-issuer URL, not authorization server metadata',
      );
    if (issuer.includes(marker)) {
      const u = new URL(issuer);
      issuer = `${u.origin}${u.pathname.replace(marker, '')}`.replace(/\/$/, '');
    }
    const view = await discoverIssuer(this.rt.plainWire(recorder), issuer);
    const configurations = configurationsOf(view.metadata);
    if (body.credential_configuration_id === undefined) {
      return {
        status: 'configuration_selection_required',
        credential_configurations: [...configurations].map(([id, c]) => ({
          credential_configuration_id: id,
          format: c.format,
          ...(c.vct ? { vct: c.vct } : {}),
          ...(c.doctype ? { doctype: c.doctype } : {}),
          ...(c.scope ? { scope: c.scope } : {}),
        })),
        ...recorder.view(),
      };
    }
    if (!configurations.has(body.credential_configuration_id))
      throw invalidRequest(`The issuer offers no configuration ${body.credential_configuration_id}`);
    this.rt.requireHaipMaterial(view, [body.credential_configuration_id]);
    return this.authorization.authorize(
      session,
      await this.rt.wire(recorder, view.asMetadata),
      view,
      [body.credential_configuration_id],
      app,
    );
  }

  /** The protected-resource mode (FAPI 2.0 discovery): needs HAIP material; discovery is checked before anything else. */
  private async protectedResource(
    session: WalletSession,
    recorder: ExchangeRecorder,
    body: ImportBody,
    app: string,
  ): Promise<Record<string, unknown>> {
    if (!this.rt.deps.settings.haipEnabled)
      throw oauthError(
        'haip_material_required',
        'discovery_url needs the HAIP attester material (WALLET_CLIENT_ATTESTATION_*_JWK_JSON)',
      );
    if (
      typeof body.resource_endpoint !== 'string' ||
      typeof body.scope !== 'string' ||
      !/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(body.scope)
    )
      throw invalidRequest(
        'discovery_url goes with resource_endpoint (an http(s) URL) and scope (RFC 6749 scope tokens)',
      );
    const endpoint = checkIssuerIdentifier(body.resource_endpoint, 'resource_endpoint');
    const plain = this.rt.plainWire(recorder);
    const { issuer, metadata } = await discoverOpenIdProvider(plain, String(body.discovery_url));
    const wire = await this.rt.wire(recorder, metadata);
    const view: IssuerView = {
      credentialIssuer: issuer,
      metadata: {},
      authorizationServer: issuer,
      asMetadata: metadata,
    };
    return this.authorization.authorize(session, wire, view, [], app, undefined, { endpoint, scope: body.scope });
  }
}

/** The offer's tx_code as the caller may see it: only values in range (the offer may come from any issuer). */
function txCodeDescription(t: TxCode | undefined): Record<string, unknown> {
  return {
    ...(t?.length !== undefined && t.length > 0 && t.length < 100 ? { length: t.length } : {}),
    ...(t?.input_mode === 'numeric' || t?.input_mode === 'text' ? { input_mode: t.input_mode } : {}),
    ...(t?.description !== undefined ? { description: t.description.slice(0, 300) } : {}),
  };
}
