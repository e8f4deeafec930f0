import { oauthError } from '../errors.ts';
import type { IssuerCore, PresentedRequest } from './core.ts';
import { decryptRequest, responseEncryptionOf, type ResponseEncryption } from './encryption.ts';

/** The resource-side check of the credential, deferred and notification endpoints: the issuer's guard. */
export async function credentialAccess(issuer: IssuerCore, request: PresentedRequest) {
  const { token, claims, subject } = await issuer.resource.admit(request);
  return { token, claims, user: subject, offerId: String(claims.issuance ?? '') };
}

/**
 * Encryption rules of a credential or deferred request (decisions section 8): required encryption
 * absent, or response encryption asked in plain JSON, is `invalid_encryption_parameters`.
 */
export async function openRequest(
  issuer: IssuerCore,

  body: unknown,
  encrypted: boolean,
): Promise<{ request: unknown; encryptTo?: ResponseEncryption }> {
  const request = encrypted ? await decryptRequest(body, issuer.pki.requestEncryption) : body;
  if (!encrypted && issuer.settings.encryptionRequired)
    throw oauthError(
      'invalid_encryption_parameters',
      'This issuer requires encrypted credential requests (application/jwt)',
    );
  const params =
    request && typeof request === 'object' && !Array.isArray(request)
      ? (request as Record<string, unknown>).credential_response_encryption
      : undefined;
  if (!encrypted && params !== undefined)
    throw oauthError(
      'invalid_encryption_parameters',
      'Response encryption needs an encrypted request (application/jwt)',
    );
  const encryptTo = responseEncryptionOf(params);
  if (issuer.settings.encryptionRequired && !encryptTo)
    throw oauthError('invalid_encryption_parameters', 'This issuer requires credential_response_encryption');
  return { request, ...(encryptTo ? { encryptTo } : {}) };
}
