import { BoundedCache } from '../../bounded-cache.ts';
import type { Clock } from '../../clock.ts';
import { OAuthError, oauthError } from '../../errors.ts';
import type { OutboundHttp } from '../../outbound.ts';
import { clientFromMetadata, type OAuthClient } from './client.ts';
import { checkClientMetadata } from './registration-metadata.ts';

/** How long a fetched document is kept, whatever its Cache-Control says (docs/oauth.md). */
export const DOCUMENT_CACHE_FLOOR_S = 60;
export const DOCUMENT_CACHE_CEILING_S = 24 * 3600;
/** Without a max-age. */
const DOCUMENT_CACHE_DEFAULT_S = 300;
/** A document that could not be used is not fetched again for this long (one client id, one fetch). */
const REFUSAL_CACHE_S = 30;

/** A client id that is a URL names its own metadata document (draft-ietf-oauth-client-id-metadata-document). */
export const isMetadataDocumentId = (clientId: string) => /^https?:\/\//i.test(clientId);

const badDocument = (url: string, problem: string) =>
  oauthError('invalid_client', `The client metadata document at ${url.slice(0, 200)} ${problem}`);

/** The draft's §3 rules of the URL itself; the guard then decides where it may be fetched from. */
function urlProblem(clientId: string): string | undefined {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (clientId.includes('#')) return 'has a fragment';
  if (url.username || url.password) return 'carries credentials';
  if (url.pathname === '/' || url.pathname === '') return 'has no path';
  if (/\/\.\.?(\/|$)/.test(clientId.slice(url.origin.length))) return 'has dot segments';
  return undefined;
}

/** Seconds to keep a document: its max-age within the floor and the ceiling. */
export function cacheSeconds(cacheControl: string | undefined): number {
  const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '')?.[1];
  const seconds = maxAge === undefined ? DOCUMENT_CACHE_DEFAULT_S : Number(maxAge);
  return Math.min(DOCUMENT_CACHE_CEILING_S, Math.max(DOCUMENT_CACHE_FLOOR_S, seconds));
}

/** The client a document describes, after the draft's checks of its contents. */
function clientOf(clientId: string, document: unknown): OAuthClient {
  if (!document || typeof document !== 'object' || Array.isArray(document))
    throw badDocument(clientId, 'is not a JSON object');
  const doc = document as Record<string, unknown>;
  if (doc.client_id !== clientId) throw badDocument(clientId, 'names another client_id than its own URL');
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined)
    throw badDocument(clientId, 'carries a client secret, which a public document cannot hold');
  let metadata;
  try {
    metadata = checkClientMetadata({ token_endpoint_auth_method: 'none', ...doc });
  } catch (error) {
    throw error instanceof OAuthError
      ? badDocument(clientId, `is not valid client metadata: ${error.description}`)
      : error;
  }
  const method = metadata.token_endpoint_auth_method;
  if (method !== 'none' && method !== 'private_key_jwt')
    throw badDocument(clientId, `uses ${method}; a document client authenticates with none or private_key_jwt`);
  if (metadata.grant_types.includes('client_credentials'))
    throw badDocument(clientId, 'asks for client_credentials, which a document client cannot use');
  // The document's host is the sector: its redirect URIs are whatever its owner publishes there.
  const client = clientFromMetadata(
    'metadata_document',
    clientId,
    { ...metadata, sector: new URL(clientId).host },
    null,
  );
  return doc.client_name === undefined ? { ...client, client_name: new URL(clientId).host } : client;
}

/**
 * Client ID Metadata Documents: fetched through the outbound guard (https only, no private address, no
 * redirect, at most 5 KiB within 5 s) and kept per their Cache-Control within a floor and a ceiling.
 */
export class ClientMetadataDocuments {
  private readonly cache = new BoundedCache<string, { client?: OAuthClient; refusal?: OAuthError; until: number }>(
    1000,
  );
  private readonly inFlight = new Map<string, Promise<OAuthClient>>();

  constructor(
    private readonly outbound: OutboundHttp,
    private readonly clock: Clock,
  ) {}

  async client(clientId: string): Promise<OAuthClient> {
    const cached = this.cache.get(clientId);
    if (cached && this.clock.now() < cached.until) {
      if (cached.refusal) throw cached.refusal;
      return cached.client!;
    }
    const pending = this.inFlight.get(clientId);
    if (pending) return pending;
    const fetching = this.load(clientId)
      .catch((error: unknown) => {
        if (error instanceof OAuthError)
          this.cache.set(clientId, { refusal: error, until: this.clock.now() + REFUSAL_CACHE_S * 1000 });
        throw error;
      })
      .finally(() => this.inFlight.delete(clientId));
    this.inFlight.set(clientId, fetching);
    return fetching;
  }

  private async load(clientId: string): Promise<OAuthClient> {
    const problem = urlProblem(clientId);
    if (problem) throw badDocument(clientId, `cannot be used: the URL ${problem}`);
    let response;
    try {
      response = await this.outbound.send(clientId, {
        headers: { accept: 'application/json' },
        followRedirects: false,
      });
    } catch (error) {
      if (error instanceof OAuthError) throw badDocument(clientId, `could not be fetched: ${error.description}`);
      throw error;
    }
    if (response.status >= 300 && response.status < 400)
      throw badDocument(clientId, `answered a redirect (HTTP ${response.status}); redirects are not followed`);
    if (response.status !== 200) throw badDocument(clientId, `answered HTTP ${response.status}`);
    let document: unknown;
    try {
      document = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw badDocument(clientId, 'is not JSON');
    }
    const client = clientOf(clientId, document);
    this.cache.set(clientId, {
      client,
      until: this.clock.now() + cacheSeconds(response.headers['cache-control']) * 1000,
    });
    return client;
  }
}
