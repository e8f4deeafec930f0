import { OAuthError, oauthError } from '../../errors.ts';
import { expectOk, type IssuerWire } from './wire.ts';

export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

export interface CredentialOffer {
  credential_issuer: string;
  credential_configuration_ids: string[];
  grants?: {
    'urn:ietf:params:oauth:grant-type:pre-authorized_code'?: {
      'pre-authorized_code': string;
      tx_code?: { length?: number; input_mode?: string; description?: string };
      authorization_server?: string;
    };
    authorization_code?: { issuer_state?: string; authorization_server?: string };
  };
}

const invalidOffer = (description: string) => oauthError('invalid_request', `offer: ${description}`);

/** The shape rule of a credential offer (OpenID4VCI 1.0 §4.1.1). */
function checkOffer(value: unknown): CredentialOffer {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw invalidOffer('a credential offer is a JSON object');
  const offer = value as Record<string, any>;
  if (typeof offer.credential_issuer !== 'string' || !/^https?:\/\//.test(offer.credential_issuer))
    throw invalidOffer('credential_issuer must be an http(s) URL');
  const ids = offer.credential_configuration_ids;
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.length > 20 ||
    ids.some((id) => typeof id !== 'string' || id.length > 200)
  )
    throw invalidOffer('credential_configuration_ids must be a non-empty array of strings');
  if (offer.grants !== undefined && (typeof offer.grants !== 'object' || Array.isArray(offer.grants)))
    throw invalidOffer('grants must be an object');
  const pre = offer.grants?.[PRE_AUTHORIZED_GRANT];
  if (pre !== undefined && (typeof pre !== 'object' || typeof pre['pre-authorized_code'] !== 'string'))
    throw invalidOffer('the pre-authorized_code grant needs a pre-authorized_code');
  return offer as CredentialOffer;
}

/**
 * An offer as the caller gave it: the JSON object (by value), an `openid-credential-offer://` URI with
 * `credential_offer` or `credential_offer_uri`, an https URL of the offer, or `{credential_offer_uri}`;
 * by reference it is fetched through the outbound guard.
 */
export async function resolveOffer(wire: IssuerWire, input: unknown): Promise<CredentialOffer> {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const ref = (input as Record<string, unknown>).credential_offer_uri;
    if (typeof ref === 'string') return fetchOffer(wire, ref);
    const byValue = (input as Record<string, unknown>).credential_offer;
    return checkOffer(byValue ?? input);
  }
  if (typeof input !== 'string' || input.length > 16_384)
    throw invalidOffer('give the offer as an object, an openid-credential-offer:// URI or an https URL');
  if (/^https?:\/\//.test(input)) return fetchOffer(wire, input);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidOffer('not a URI');
  }
  if (url.protocol !== 'openid-credential-offer:' && url.protocol !== 'haip:')
    throw invalidOffer('a URI offer uses the openid-credential-offer:// scheme');
  const byValue = url.searchParams.get('credential_offer');
  const byReference = url.searchParams.get('credential_offer_uri');
  if ((byValue === null) === (byReference === null))
    throw invalidOffer('exactly one of credential_offer and credential_offer_uri');
  if (byReference !== null) return fetchOffer(wire, byReference);
  try {
    return checkOffer(JSON.parse(byValue!));
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    throw invalidOffer('credential_offer is not JSON');
  }
}

async function fetchOffer(wire: IssuerWire, uri: string): Promise<CredentialOffer> {
  return checkOffer(expectOk(await wire.call('offer', uri), 'The credential offer').json);
}
