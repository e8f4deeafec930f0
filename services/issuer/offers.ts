import { createHmac } from 'node:crypto';
import { invalidRequest, notFound } from '../errors.ts';
import { randomToken } from '../crypto/random.ts';
import type { IssuerCore } from './core.ts';
import { hash, sixDigits } from './request-rules.ts';
import { OFFER_TTL_S } from './settings.ts';
import { credentialEntries } from './status-change.ts';
import { statusDocument } from './status.ts';
import { PRE_AUTHORIZED_GRANT } from './token/grants.ts';

export interface OfferInput {
  credential_configuration_ids?: string[];
  grant?: 'pre-authorized_code' | 'authorization_code';
  tx_code?: boolean;
  deferred?: boolean;
  by_value?: boolean;
  user?: string;
}

/** `POST /oid4vci/offers`: an offer of either grant, its secrets kept in the log only as hashes. */
export async function createOffer(issuer: IssuerCore, input: OfferInput) {
  const ids = input.credential_configuration_ids ?? [...issuer.settings.configurations.keys()].slice(0, 1);
  if (ids.length === 0 || ids.some((id) => !issuer.settings.configurations.has(id)))
    throw invalidRequest('credential_configuration_ids names an unknown configuration');
  const user = input.user ?? 'alice';
  if (!issuer.users.has(user)) throw invalidRequest(`user must be one of ${[...issuer.users.keys()].join(', ')}`);
  const offerId = randomToken(12);
  const at = issuer.clock.now();
  // Only the creator can change its credentials' status (docs/status.md): the log keeps the hash.
  const statusToken = randomToken(32);
  if (input.grant === 'authorization_code') {
    if (input.tx_code === true) throw invalidRequest('tx_code belongs to the pre-authorized_code grant');
    const issuerState = offerSecret(issuer, 'issuer_state', offerId);
    await issuer.offers.create(offerId, {
      type: 'issuance.offered',
      at,
      grant: 'authorization_code',
      configuration_ids: ids,
      issuer_state_hash: hash(issuerState),
      expires_at: at + OFFER_TTL_S * 1000,
      by_value: input.by_value === true,
      user,
      ...(input.deferred === true ? { deferred: true } : {}),
      status_token_hash: hash(statusToken),
    });
    const offer = {
      credential_issuer: issuer.settings.issuer,
      credential_configuration_ids: ids,
      grants: { authorization_code: { issuer_state: issuerState } },
    };
    const offerUri = `${issuer.settings.issuer}/credential-offer/${offerId}`;
    return {
      offer_id: offerId,
      ...(input.by_value === true ? { credential_offer: offer } : { credential_offer_uri: offerUri }),
      offer_url: `openid-credential-offer://?${input.by_value === true ? `credential_offer=${encodeURIComponent(JSON.stringify(offer))}` : `credential_offer_uri=${encodeURIComponent(offerUri)}`}`,
      issuer_state: issuerState,
      status_uri: `${issuer.settings.issuer}/offers/${offerId}/status`,
      status_token: statusToken,
      expires_in: OFFER_TTL_S,
    };
  }
  const code = offerSecret(issuer, 'pre-authorized_code', offerId);
  const txCode = input.tx_code === true ? sixDigits() : undefined;
  await issuer.offers.create(offerId, {
    type: 'issuance.offered',
    at,
    grant: 'pre-authorized_code',
    configuration_ids: ids,
    code_hash: hash(code),
    ...(txCode ? { tx_code_hash: hash(txCode) } : {}),
    expires_at: at + OFFER_TTL_S * 1000,
    by_value: input.by_value === true,
    user,
    ...(input.deferred === true ? { deferred: true } : {}),
    status_token_hash: hash(statusToken),
  });
  const offer = offerDocument(issuer, ids, code, txCode !== undefined);
  const offerUri = `${issuer.settings.issuer}/credential-offer/${offerId}`;
  const credentialOffer = input.by_value === true ? { credential_offer: offer } : { credential_offer_uri: offerUri };
  const query =
    input.by_value === true
      ? `credential_offer=${encodeURIComponent(JSON.stringify(offer))}`
      : `credential_offer_uri=${encodeURIComponent(offerUri)}`;
  return {
    offer_id: offerId,
    ...credentialOffer,
    offer_url: `openid-credential-offer://?${query}`,
    pre_authorized_code: code,
    ...(txCode ? { tx_code_value: txCode } : {}),
    status_uri: `${issuer.settings.issuer}/offers/${offerId}/status`,
    status_token: statusToken,
    expires_in: OFFER_TTL_S,
  };
}

function offerDocument(issuer: IssuerCore, ids: string[], code: string, txCode: boolean) {
  return {
    credential_issuer: issuer.settings.issuer,
    credential_configuration_ids: ids,
    grants: {
      [PRE_AUTHORIZED_GRANT]: {
        'pre-authorized_code': code,
        ...(txCode
          ? { tx_code: { length: 6, input_mode: 'numeric', description: 'The six digits shown with the offer' } }
          : {}),
      },
    },
  };
}

/** The offer document by reference (OpenID4VCI 1.0 §4.1.3); the wallet's fetch is recorded. */
export async function fetchOffer(issuer: IssuerCore, offerId: string): Promise<unknown> {
  const { snapshot, version } = await issuer.offers.get(offerId);
  if (version === 0) throw notFound('No such credential offer');
  if (snapshot.context.expiresAt <= issuer.clock.now() || snapshot.status === 'done') {
    await issuer.recordLapse(offerId);
    throw notFound('The credential offer has expired');
  }
  await issuer.offers.execute(offerId, { type: 'issuance.offer_fetched', at: issuer.clock.now() });
  if (snapshot.context.grant === 'authorization_code')
    return {
      credential_issuer: issuer.settings.issuer,
      credential_configuration_ids: snapshot.context.configurationIds,
      grants: { authorization_code: { issuer_state: offerSecret(issuer, 'issuer_state', offerId) } },
    };
  return offerDocument(
    issuer,
    snapshot.context.configurationIds,
    offerSecret(issuer, 'pre-authorized_code', offerId),
    snapshot.context.txCodeHash !== undefined,
  );
}

/**
 * The link a QR code of an offer carries (OpenID4VCI 1.0 §4.1.3): by reference to the offer's own
 * URL, so no code travels in the picture; reading it records nothing. Only while the offer is open.
 */
export async function offerLink(issuer: IssuerCore, offerId: string): Promise<string> {
  const { snapshot, version } = await issuer.offers.get(offerId);
  if (version === 0) throw notFound('No such credential offer');
  if (snapshot.context.expiresAt <= issuer.clock.now() || snapshot.status === 'done')
    throw notFound('The credential offer has expired');
  const uri = `${issuer.settings.issuer}/credential-offer/${offerId}`;
  return `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(uri)}`;
}

/**
 * An offer's pre-authorized code or issuer_state: the offer id and an HMAC of it under the server
 * secret, so any instance sharing the key file can serve the offer by reference (the log keeps only
 * the hash), and a restart does not lose it.
 */
function offerSecret(issuer: IssuerCore, kind: 'pre-authorized_code' | 'issuer_state', offerId: string): string {
  return `${offerId}.${createHmac('sha256', issuer.keys.secret('offer-code')).update(`${kind}:${offerId}`).digest('base64url').slice(0, 32)}`;
}

/** `GET /oid4vci/offers/{id}/status`. */
export async function offerStatus(issuer: IssuerCore, offerId: string) {
  const { snapshot, version } = await issuer.offers.get(offerId);
  if (version === 0) throw notFound('No such credential offer');
  return {
    ...statusDocument(snapshot, snapshot.context, issuer.clock.now()),
    credentials: credentialEntries(issuer, snapshot.context),
  };
}
