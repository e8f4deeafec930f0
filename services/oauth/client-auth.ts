import { challenge } from './www-authenticate.ts';
import { JWT_BEARER_ASSERTION } from './client-kit.ts';
import { CLOCK_SKEW_S } from '../crypto/time-claims.ts';
import { decodeJwt, importJWK, jwtVerify, type JWK, type JWTHeaderParameters } from 'jose';
import { sameText } from '../crypto/compare.ts';
import { OAuthError, oauthError } from '../errors.ts';
import type { ClientAuthMethod } from './demo-clients.ts';
import type { OAuthClient } from './clients/client.ts';
import { sha256 } from '../crypto/random.ts';

/** Spec §5: `private_key_jwt` takes exactly these; any other `alg` (`Ed25519` too) is refused. */
export const CLIENT_ASSERTION_ALGS = ['RS256', 'ES256', 'EdDSA'];

const KEY_FITS_ALG: Record<string, (k: JWK) => boolean> = {
  RS256: (k) => k.kty === 'RSA',
  ES256: (k) => k.kty === 'EC' && k.crv === 'P-256',
  EdDSA: (k) => k.kty === 'OKP' && k.crv === 'Ed25519',
};

/** The client's registered key for a JWS header: by `kid` when given, always of the header's alg family. */
function clientKey(keys: JWK[]) {
  return async (header: JWTHeaderParameters) => {
    const fits = KEY_FITS_ALG[header.alg];
    const jwk = keys.find((k) => fits?.(k) && (header.kid === undefined || k.kid === header.kid));
    if (!jwk) throw new Error('no registered key fits the assertion');
    const { alg, ...material } = jwk;
    void alg;
    return importJWK(material, header.alg);
  };
}

export interface ClientCredentials {
  authorization?: string;
  body: Record<string, string | undefined>;
}

export interface AuthenticatedClient {
  client: OAuthClient;
  method: ClientAuthMethod;
}

export interface ClientAuthDeps {
  clients: { find(clientId: string): Promise<OAuthClient | undefined> };
  /** The client's public keys: its registered `jwks`, or those at its `jwks_uri`. */
  keysOf(client: OAuthClient): Promise<JWK[]>;
  /** Audiences a client assertion may name: the token endpoint URL and the issuer. */
  audiences: string[];
  nowMs: number;
  /** Records a client assertion jti; false when it was used before (RFC 7523 section 3, item 7). */
  useAssertionJti(clientId: string, jti: string, exp: number): Promise<boolean>;
}

const invalidClient = (description: string, basicTried: boolean) =>
  oauthError(
    'invalid_client',
    description,
    basicTried
      ? {
          'www-authenticate': challenge('Basic', [
            ['realm', 'portico'],
            ['error', 'invalid_client'],
          ]),
        }
      : {},
  );

function parseBasic(header: string): { id: string; secret: string } | undefined {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    // RFC 6749 section 2.3.1: both parts are form-urlencoded before base64.
    const unescape = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/**
 * RFC 6749 section 2.3 and RFC 7523 section 2.2: exactly one authentication method per request, and
 * only the one the client registered.
 */
export async function authenticateClient(creds: ClientCredentials, deps: ClientAuthDeps): Promise<AuthenticatedClient> {
  const { body } = creds;
  const basicTried = creds.authorization !== undefined && /^Basic /i.test(creds.authorization);
  const methods: ClientAuthMethod[] = [];
  if (basicTried) methods.push('client_secret_basic');
  if (body.client_secret !== undefined) methods.push('client_secret_post');
  if (body.client_assertion !== undefined || body.client_assertion_type !== undefined) methods.push('private_key_jwt');
  if (methods.length > 1) throw oauthError('invalid_request', 'Use exactly one client authentication method');
  const method: ClientAuthMethod = methods[0] ?? 'none';

  let clientId: string | undefined;
  let secret: string | undefined;
  if (method === 'client_secret_basic') {
    const parsed = parseBasic(creds.authorization!);
    if (!parsed) throw invalidClient('Malformed Basic credentials', true);
    ({ id: clientId, secret } = parsed);
    if (body.client_id !== undefined && body.client_id !== clientId)
      throw oauthError('invalid_request', 'client_id differs from the authenticated client');
  } else if (method === 'client_secret_post') {
    clientId = body.client_id;
    secret = body.client_secret;
  } else if (method === 'private_key_jwt') {
    if (body.client_assertion_type !== JWT_BEARER_ASSERTION || !body.client_assertion) {
      throw oauthError(
        'invalid_request',
        `client_assertion_type must be ${JWT_BEARER_ASSERTION} with a client_assertion`,
      );
    }
    try {
      clientId = decodeJwt(body.client_assertion).iss;
    } catch {
      throw invalidClient('The client assertion is not a JWT', false);
    }
    if (body.client_id !== undefined && body.client_id !== clientId)
      throw oauthError('invalid_request', 'client_id differs from the client assertion');
  } else {
    clientId = body.client_id;
  }
  if (!clientId) throw invalidClient('Client authentication failed: no client identified', basicTried);
  const client = await deps.clients.find(clientId).catch((error: unknown) => {
    // A client metadata document that cannot be used says why, with the challenge Basic needs.
    if (error instanceof OAuthError && error.error === 'invalid_client')
      throw invalidClient(error.description, basicTried);
    throw error;
  });
  if (!client) throw invalidClient('Client authentication failed: unknown client', basicTried);
  if (client.token_endpoint_auth_method !== method) {
    throw invalidClient(
      `This client is registered for ${client.token_endpoint_auth_method}, not ${method}`,
      basicTried,
    );
  }
  if (method === 'client_secret_basic' || method === 'client_secret_post') {
    if (!secret || !client.secretHash || !sameText(sha256(secret), client.secretHash))
      throw invalidClient('Client authentication failed', basicTried);
  }
  if (method === 'private_key_jwt') await checkAssertion(body.client_assertion!, client, deps);
  return { client, method };
}

async function checkAssertion(assertion: string, client: OAuthClient, deps: ClientAuthDeps): Promise<void> {
  let payload;
  try {
    ({ payload } = await jwtVerify(assertion, clientKey(await deps.keysOf(client)), {
      algorithms: CLIENT_ASSERTION_ALGS,
      issuer: client.client_id,
      subject: client.client_id,
      audience: deps.audiences,
      currentDate: new Date(deps.nowMs),
      clockTolerance: CLOCK_SKEW_S,
      requiredClaims: ['exp', 'jti'],
    }));
  } catch {
    throw invalidClient('The client assertion is invalid or expired', false);
  }
  if (!(await deps.useAssertionJti(client.client_id, payload.jti!, payload.exp!))) {
    throw invalidClient('The client assertion was already used', false);
  }
}
