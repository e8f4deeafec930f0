import { randomBytes, sha256 } from '../crypto/random.ts';
import { sameText } from '../crypto/compare.ts';
import { oauthError } from '../errors.ts';

/** What the log keeps of a code, token or id: a fingerprint of its SHA-256, never the value. */
export const hash = (value: string) => `[redacted sha256:${sha256(value).slice(0, 22)}]`;
/** Codes and ids that name their offer (`<offer_id>.<secret>`), so no lookup table is needed. */
export const offerOf = (value: unknown) =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{8,64}\.[A-Za-z0-9_-]{16,}$/.test(value)
    ? value.split('.')[0]
    : undefined;
export const sameHash = (value: string, stored: string | undefined) =>
  stored !== undefined && sameText(hash(value), stored);
/**
 * The id-field rule of a credential request (OpenID4VCI 1.0 §8.2): with credential_identifiers in the
 * token, exactly credential_identifier; otherwise exactly credential_configuration_id.
 */
export function requestedConfiguration(req: Record<string, unknown>, details: unknown): string {
  const identifiers = new Map<string, string>();
  for (const d of Array.isArray(details) ? details : [])
    for (const id of (d as { credential_identifiers?: string[] }).credential_identifiers ?? [])
      identifiers.set(id, String((d as { credential_configuration_id?: string }).credential_configuration_id));
  const hasId = req.credential_identifier !== undefined;
  const hasConfig = req.credential_configuration_id !== undefined;
  if (hasId && hasConfig)
    throw oauthError(
      'invalid_credential_request',
      'Send exactly one of credential_configuration_id and credential_identifier',
    );
  if (identifiers.size > 0) {
    if (!hasId || hasConfig)
      throw oauthError(
        'invalid_credential_request',
        'This token carries credential_identifiers: send credential_identifier (and no credential_configuration_id)',
      );
    const configuration = identifiers.get(String(req.credential_identifier));
    if (!configuration)
      throw oauthError(
        'unknown_credential_identifier',
        'The credential_identifier is not one the token was issued for',
      );
    return configuration;
  }
  if (hasId) throw oauthError('unknown_credential_identifier', 'This token carries no credential_identifiers');
  if (!hasConfig)
    throw oauthError(
      'invalid_credential_request',
      'Send exactly one of credential_configuration_id and credential_identifier',
    );
  return String(req.credential_configuration_id);
}

/** OpenID4VCI 1.0 §11.1: event_description is text of %x20-21 / %x23-5B / %x5D-7E only. */
export const isNotificationDescription = (value: unknown): value is string =>
  typeof value === 'string' && /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/.test(value);

/** A six-digit transaction code. */
export const sixDigits = () => String(randomBytes(4).readUInt32BE(0) % 1_000_000).padStart(6, '0');
