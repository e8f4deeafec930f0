import { createHmac } from 'node:crypto';
import type { RegisteredMetadata } from '../../../machines/oauth-client.ts';
import { OAuthError, oauthError } from '../../errors.ts';
import type { OutboundHttp } from '../../outbound.ts';

const invalidSector = (description: string) => oauthError('invalid_client_metadata', description);

/**
 * OpenID Connect Core §8.1 and Registration §5: the sector of a client's pairwise subjects. With a
 * `sector_identifier_uri`, that URL is fetched through the outbound guard and must list every redirect
 * URI; its host is the sector. Without one, the redirect URIs must share one host, which is it.
 */
export async function resolveSector(metadata: RegisteredMetadata, outbound: OutboundHttp): Promise<RegisteredMetadata> {
  const uri = metadata.sector_identifier_uri;
  if (uri !== undefined) {
    await checkSectorDocument(uri, metadata.redirect_uris, outbound);
    return { ...metadata, sector: new URL(uri).hostname };
  }
  if (metadata.subject_type !== 'pairwise') return metadata;
  // OIDC Core §8.1: the sector is the host; ports do not make another sector.
  const hosts = new Set(metadata.redirect_uris.map((u) => new URL(u).hostname));
  if (hosts.size !== 1)
    throw invalidSector('A pairwise client whose redirect URIs are not on one host needs a sector_identifier_uri');
  return { ...metadata, sector: [...hosts][0] };
}

async function checkSectorDocument(uri: string, redirectUris: string[], outbound: OutboundHttp): Promise<void> {
  let response;
  try {
    response = await outbound.send(uri, { headers: { accept: 'application/json' }, followRedirects: false });
  } catch (error) {
    if (error instanceof OAuthError)
      throw invalidSector(`sector_identifier_uri could not be fetched: ${error.description}`);
    throw error;
  }
  if (response.status !== 200) throw invalidSector(`sector_identifier_uri answered HTTP ${response.status}`);
  let listed: unknown;
  try {
    listed = JSON.parse(response.body.toString('utf8'));
  } catch {
    listed = undefined;
  }
  if (!Array.isArray(listed) || listed.some((u) => typeof u !== 'string'))
    throw invalidSector('sector_identifier_uri must answer a JSON array of redirect URIs');
  const missing = redirectUris.find((u) => !listed.includes(u));
  if (missing !== undefined) throw invalidSector(`sector_identifier_uri does not list the redirect URI ${missing}`);
}

/** OpenID Connect Core §8.1: one person's subject for one sector, the same each time, unlinkable across sectors. */
export function pairwiseSubject(sector: string, userId: string, salt: Uint8Array): string {
  return createHmac('sha256', salt).update(`${sector}\n${userId}`).digest('base64url');
}
