import type { JWK } from 'jose';
import type { OutboundHttp } from '../../outbound.ts';
import type { OAuthClient } from './client.ts';

/**
 * A client's public keys for private_key_jwt (RFC 7523): those it registered, or the JWK Set at its
 * `jwks_uri`, fetched through the outbound guard each time (no redirects). None when that fails.
 */
export async function clientKeys(client: OAuthClient, outbound: OutboundHttp | undefined): Promise<JWK[]> {
  if (client.jwks) return client.jwks.keys;
  if (!client.jwks_uri || !outbound) return [];
  const response = await outbound
    .send(client.jwks_uri, { headers: { accept: 'application/json' }, followRedirects: false })
    .catch(() => undefined);
  if (response?.status !== 200) return [];
  try {
    const keys = (JSON.parse(response.body.toString('utf8')) as { keys?: unknown }).keys;
    return Array.isArray(keys) ? keys.filter((k): k is JWK => !!k && typeof k === 'object') : [];
  } catch {
    return [];
  }
}
