import type { CredentialStatusName, IssuanceContext, IssuedCredentialRecord } from '../../machines/issuance.ts';
import { STATUS_VALUE_OF } from '../credentials/status-list/bits.ts';
import { notFound, oauthError } from '../errors.ts';
import { invalidTokenError, tokenRequired } from '../oauth/protected-resources.ts';
import type { IssuerCore } from './core.ts';
import { sameHash } from './request-rules.ts';

/** One issued credential as the offer's status document and the change endpoint show it (docs/status.md). */
function credentialEntry(issuer: IssuerCore, credential: IssuedCredentialRecord, n: number) {
  return {
    n,
    format: issuer.settings.configurations.get(credential.configurationId)?.format ?? 'unknown',
    configuration_id: credential.configurationId,
    status: credential.status,
    ...(credential.listId !== undefined
      ? { status_list: { uri: issuer.statusSlots.tokenUri(credential.listId), idx: credential.idx } }
      : {}),
  };
}

export const credentialEntries = (issuer: IssuerCore, c: IssuanceContext) =>
  c.credentials.map((credential, n) => credentialEntry(issuer, credential, n));

/** The body's `status`: one of the three names, or 400. */
function requestedStatus(body: unknown): CredentialStatusName {
  const status =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as { status?: unknown }).status : undefined;
  if (status !== 'valid' && status !== 'suspended' && status !== 'revoked')
    throw oauthError('invalid_request', 'status must be "valid", "suspended" or "revoked"');
  return status;
}

/** `n` as the path gives it: a credential's position, from 0. */
const positionOf = (n: string) => (/^(0|[1-9]\d{0,5})$/.test(n) ? Number(n) : undefined);

/**
 * Only the offer's creator may change its credentials' status: the status token of the offer-creation
 * answer, sent as a Bearer token. A missing or wrong token is the same 401, so a caller learns nothing
 * about an offer it did not create.
 */
function checkStatusToken(storedHash: string | undefined, presented: string | undefined): void {
  if (presented === undefined)
    throw tokenRequired("Send the offer's status_token as a Bearer token", { realm: 'credential status' });
  if (!sameHash(presented, storedHash)) throw invalidTokenError("The status_token is not this offer's");
}

/**
 * `POST /oid4vci/offers/{id}/credentials/{n}/status`: sets one issued credential's status, as a
 * `credential.status_changed` event of the offer's stream. Revocation is final (409 after it); asking
 * for the status a credential already has changes nothing and records nothing.
 */
export async function changeCredentialStatus(
  issuer: IssuerCore,
  offerId: string,
  nParam: string,
  body: unknown,
  statusToken: string | undefined,
) {
  const { snapshot, version } = await issuer.offers.get(offerId);
  // An unknown offer and a wrong token answer alike: an offer id alone reveals nothing.
  checkStatusToken(version === 0 ? undefined : snapshot.context.statusTokenHash, statusToken);
  const status = requestedStatus(body);
  const n = positionOf(nParam);
  const credential = n === undefined ? undefined : snapshot.context.credentials[n];
  if (n === undefined || !credential) throw notFound(`This offer issued no credential ${nParam}`);
  if (credential.listId === undefined || credential.idx === undefined)
    throw oauthError(
      'invalid_request:conflict',
      'This credential was issued before credential status; it has no status list entry',
    );
  if (credential.status === 'revoked')
    throw oauthError('invalid_request:conflict', 'This credential is revoked; revocation is final');
  if (credential.status === status) return credentialEntry(issuer, credential, n);
  const outcome = await issuer.offers.execute(offerId, {
    type: 'credential.status_changed',
    at: issuer.clock.now(),
    n,
    status,
    value: STATUS_VALUE_OF[status],
    list_id: credential.listId,
    idx: credential.idx,
  });
  // Refused only when another request revoked it in between.
  if (!outcome.accepted)
    throw oauthError('invalid_request:conflict', 'This credential is revoked; revocation is final');
  return credentialEntry(issuer, outcome.snapshot.context.credentials[n], n);
}
