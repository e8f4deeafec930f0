import {
  oauthClientMachine,
  type OAuthClientContext,
  type OAuthClientEvent,
  type RegisteredMetadata,
  oauthClientStates,
} from '../../../machines/oauth-client.ts';
import type { ActorRuntime } from '../../actors/runtime.ts';
import type { Clock } from '../../clock.ts';
import { sameText } from '../../crypto/compare.ts';
import { randomToken, sha256 } from '../../crypto/random.ts';
import { oauthError } from '../../errors.ts';
import type { DemoClient } from '../demo-clients.ts';
import { challenge } from '../www-authenticate.ts';
import { clientFromMetadata, usesSecret, type OAuthClient } from './client.ts';
import { isMetadataDocumentId, type ClientMetadataDocuments } from './metadata-document.ts';

/** A registered client lapses this long after it was last used (docs/oauth.md). */
const REGISTRATION_IDLE_MS = 24 * 3600 * 1000;
/** Uses closer together than this are not recorded again (the lapse moves in hours, not seconds). */
const USE_RECORDED_EVERY_MS = 3600 * 1000;
const MAX_CLIENT_ID = 512;

/** What RFC 7591 §3.2.1 and RFC 7592 §3 answer: the metadata with the client's identifiers. */
export interface ClientInformation extends RegisteredMetadata {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
  registration_access_token: string;
  registration_client_uri: string;
}

/** A demo client as the endpoints see it: its published secret by its hash. */
function demoClient(c: DemoClient): OAuthClient {
  const { client_secret, private_jwks, ...published } = c;
  void private_jwks;
  return {
    ...published,
    kind: 'demo',
    secretHash: client_secret ? sha256(client_secret) : null,
    subject_type: 'public',
    require_pushed_authorization_requests: false,
  };
}

/** RFC 7592 §2.2: the update names the client, proves its secret if it sends one, and keeps its kind of authentication. */
function checkUpdate(
  clientId: string,
  current: OAuthClientContext,
  body: Record<string, unknown>,
  metadata: RegisteredMetadata,
): void {
  if (body.client_id !== clientId) throw oauthError('invalid_request', 'client_id must be the client being updated');
  if (body.client_secret !== undefined) {
    const given = typeof body.client_secret === 'string' ? sha256(body.client_secret) : '';
    if (!current.secretHash || !sameText(given, current.secretHash))
      throw oauthError('invalid_request', 'client_secret is not this client’s secret');
  }
  if (usesSecret(metadata.token_endpoint_auth_method) !== usesSecret(current.metadata!.token_endpoint_auth_method))
    throw oauthError(
      'invalid_client_metadata',
      'An update cannot move a client to or from secret-based authentication',
    );
}

/** RFC 7592 §2: a missing, wrong or stale registration access token, or a client that is gone, is one 401. */
const registrationRefused = () =>
  oauthError('invalid_token:registration', 'The registration access token is invalid, or the client no longer exists', {
    'www-authenticate': challenge('Bearer', [['error', 'invalid_token']]),
  });

/**
 * Every client the authorization servers know: the published demo clients, clients registered at
 * the registration endpoint (RFC 7591, managed by RFC 7592), and clients whose id is the URL of their
 * metadata document (fetched through the outbound guard).
 */
export class ClientRegistry {
  private readonly demo: ReadonlyMap<string, OAuthClient>;

  constructor(
    private readonly registered: ActorRuntime<typeof oauthClientMachine>,
    demo: DemoClient[],
    private readonly clock: Clock,
    private readonly registrationUri: (clientId: string) => string,
    private readonly documents?: ClientMetadataDocuments,
  ) {
    this.demo = new Map(demo.map((c) => [c.client_id, demoClient(c)]));
  }

  /**
   * The client of an id, or undefined when there is none. A metadata document that cannot be used is
   * an `invalid_client` saying what was wrong with it.
   */
  async find(clientId: string | undefined): Promise<OAuthClient | undefined> {
    if (!clientId || clientId.length > MAX_CLIENT_ID) return undefined;
    const demo = this.demo.get(clientId);
    if (demo) return demo;
    if (isMetadataDocumentId(clientId)) return this.documents?.client(clientId);
    const { snapshot } = await this.registered.get(clientId);
    if (!oauthClientStates.registered(snapshot) || this.clock.now() >= snapshot.context.expiresAt) return undefined;
    return clientFromMetadata('registered', clientId, snapshot.context.metadata!, snapshot.context.secretHash ?? null);
  }

  /** RFC 7591 §3.2.1: a new client, with its secret (confidential methods) and registration access token shown once. */
  async register(metadata: RegisteredMetadata): Promise<ClientInformation> {
    const clientId = randomToken(18);
    const secret = usesSecret(metadata.token_endpoint_auth_method) ? randomToken(32) : undefined;
    const registrationToken = randomToken(32);
    const at = this.clock.now();
    const outcome = await this.registered.create(clientId, {
      type: 'client.registered',
      at,
      metadata,
      ...(secret ? { secretHash: sha256(secret) } : {}),
      registrationTokenHash: sha256(registrationToken),
      expiresAt: at + REGISTRATION_IDLE_MS,
    });
    if (!outcome.accepted) throw oauthError('server_error', 'The client could not be recorded');
    return {
      ...this.information(clientId, outcome.snapshot.context, registrationToken),
      ...(secret ? { client_secret: secret } : {}),
    };
  }

  /** RFC 7592 §2.1: the client's information, with a new registration access token. */
  async read(clientId: string, registrationToken: string | undefined): Promise<ClientInformation> {
    const next = randomToken(32);
    const context = await this.manage(clientId, registrationToken, () => ({
      type: 'client.read',
      at: this.clock.now(),
      registrationTokenHash: sha256(next),
    }));
    return this.information(clientId, context, next);
  }

  /** RFC 7592 §2.2: replaces the client's metadata; `client_id` must name it, a `client_secret` must be its own. */
  async update(
    clientId: string,
    registrationToken: string | undefined,
    body: Record<string, unknown>,
    metadata: RegisteredMetadata,
  ): Promise<ClientInformation> {
    const next = randomToken(32);
    const context = await this.manage(clientId, registrationToken, (current) => {
      checkUpdate(clientId, current, body, metadata);
      return { type: 'client.updated', at: this.clock.now(), metadata, registrationTokenHash: sha256(next) };
    });
    return this.information(clientId, context, next);
  }

  /** RFC 7592 §2.3: the client is gone; answers the refresh families to revoke with it. */
  async delete(clientId: string, registrationToken: string | undefined): Promise<string[]> {
    let families: string[] = [];
    await this.manage(clientId, registrationToken, (current) => {
      families = current.refreshFamilies;
      return { type: 'client.deleted', at: this.clock.now(), revokesFamilies: families };
    });
    return families;
  }

  /** A registered client authorized or got tokens: its 24 hours start again (recorded at most hourly, or with a new refresh family). */
  async noteUse(client: OAuthClient, refreshFamily?: string): Promise<void> {
    if (client.kind !== 'registered') return;
    await this.registered.execute(client.client_id, ({ snapshot }) => {
      const at = this.clock.now();
      if (!refreshFamily && at - (snapshot.context.lastUsedAt ?? 0) < USE_RECORDED_EVERY_MS) return undefined;
      return {
        type: 'client.used',
        at,
        expiresAt: at + REGISTRATION_IDLE_MS,
        ...(refreshFamily ? { refreshFamily } : {}),
      };
    });
  }

  /** RFC 7592 §2: the client's state when the registration access token is its current one; a 401 otherwise. */
  async authorizeManagement(clientId: string, token: string | undefined): Promise<OAuthClientContext> {
    if (!token || clientId.length > MAX_CLIENT_ID || isMetadataDocumentId(clientId)) throw registrationRefused();
    const { snapshot } = await this.registered.get(clientId);
    if (!this.tokenFits(snapshot, token)) throw registrationRefused();
    return snapshot.context;
  }

  private tokenFits(snapshot: { value: unknown; context: OAuthClientContext }, token: string): boolean {
    const hash = snapshot.context.registrationTokenHash;
    return (
      oauthClientStates.registered(snapshot) &&
      this.clock.now() < snapshot.context.expiresAt &&
      hash !== undefined &&
      sameText(sha256(token), hash)
    );
  }

  /**
   * One management operation, decided in the client's turn: the token is checked against the current
   * state there, so of two requests with one token only the first is served (each rotates it).
   */
  private async manage(
    clientId: string,
    token: string | undefined,
    decide: (current: OAuthClientContext) => OAuthClientEvent,
  ): Promise<OAuthClientContext> {
    if (!token || clientId.length > MAX_CLIENT_ID || isMetadataDocumentId(clientId)) throw registrationRefused();
    const outcome = await this.registered.execute(clientId, ({ snapshot }) =>
      this.tokenFits(snapshot, token) ? decide(snapshot.context) : undefined,
    );
    if (!outcome.accepted) throw registrationRefused();
    return outcome.snapshot.context;
  }

  private information(clientId: string, context: OAuthClientContext, registrationToken: string): ClientInformation {
    const { sector, ...metadata } = context.metadata!;
    void sector;
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(context.issuedAt! / 1000),
      ...(context.secretHash ? { client_secret_expires_at: Math.floor(context.expiresAt / 1000) } : {}),
      ...metadata,
      registration_access_token: registrationToken,
      registration_client_uri: this.registrationUri(clientId),
    };
  }
}
