import { isJsonObject, stringsOf, type JsonObject } from '../../untrusted/json.ts';
import { OAuthError, oauthError } from '../../errors.ts';
import { expectOk, type IssuerWire } from './wire.ts';

export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** What an offer says of the transaction code it asks for (OpenID4VCI 1.0 §4.1.1); `length` an integer. */
export interface TxCode {
  length?: number;
  input_mode?: string;
  description?: string;
}

export interface CredentialOffer {
  credential_issuer: string;
  credential_configuration_ids: string[];
  grants?: {
    'urn:ietf:params:oauth:grant-type:pre-authorized_code'?: {
      'pre-authorized_code': string;
      tx_code?: TxCode;
      authorization_server?: string;
    };
    authorization_code?: { issuer_state?: string; authorization_server?: string };
  };
}

const invalidOffer = (description: string) => oauthError('invalid_request', `offer: ${description}`);

type Grants = NonNullable<CredentialOffer['grants']>;
type PreAuthorizedGrant = NonNullable<Grants[typeof PRE_AUTHORIZED_GRANT]>;

/** Optional string members of a grant, each refused when present as anything else. */
function optionalStrings(from: JsonObject, names: string[], where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = from[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidOffer(`${where}.${name} must be a string`);
    out[name] = value;
  }
  return out;
}

/** The pre-authorized code grant (OpenID4VCI 1.0 §4.1.1): its code, and a `tx_code` object when one is asked. */
function checkPreAuthorizedGrant(grant: unknown): PreAuthorizedGrant {
  if (!isJsonObject(grant) || typeof grant['pre-authorized_code'] !== 'string')
    throw invalidOffer('the pre-authorized_code grant needs a pre-authorized_code');
  const txCode = grant.tx_code;
  if (txCode !== undefined && !isJsonObject(txCode)) throw invalidOffer('tx_code must be an object');
  if (txCode && txCode.length !== undefined && !Number.isInteger(txCode.length))
    throw invalidOffer('tx_code.length must be an integer');
  return {
    'pre-authorized_code': grant['pre-authorized_code'],
    ...optionalStrings(grant, ['authorization_server'], 'pre-authorized_code'),
    ...(txCode
      ? {
          tx_code: {
            ...(typeof txCode.length === 'number' ? { length: txCode.length } : {}),
            ...optionalStrings(txCode, ['input_mode', 'description'], 'tx_code'),
          },
        }
      : {}),
  };
}

/** The grants the wallet knows, each checked; grants of other types are left out. */
function checkGrants(grants: unknown): Grants {
  if (!isJsonObject(grants)) throw invalidOffer('grants must be an object');
  const pre = grants[PRE_AUTHORIZED_GRANT];
  const code = grants.authorization_code;
  if (code !== undefined && !isJsonObject(code)) throw invalidOffer('the authorization_code grant must be an object');
  return {
    ...(pre !== undefined ? { [PRE_AUTHORIZED_GRANT]: checkPreAuthorizedGrant(pre) } : {}),
    ...(code
      ? { authorization_code: optionalStrings(code, ['issuer_state', 'authorization_server'], 'authorization_code') }
      : {}),
  };
}

/** The shape rule of a credential offer (OpenID4VCI 1.0 §4.1.1). */
function checkOffer(value: unknown): CredentialOffer {
  if (!isJsonObject(value)) throw invalidOffer('a credential offer is a JSON object');
  const issuer = value.credential_issuer;
  if (typeof issuer !== 'string' || !/^https?:\/\//.test(issuer))
    throw invalidOffer('credential_issuer must be an http(s) URL');
  const ids = value.credential_configuration_ids;
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.length > 20 ||
    ids.some((id) => typeof id !== 'string' || id.length > 200)
  )
    throw invalidOffer('credential_configuration_ids must be a non-empty array of strings');
  return {
    credential_issuer: issuer,
    credential_configuration_ids: stringsOf(ids),
    ...(value.grants !== undefined ? { grants: checkGrants(value.grants) } : {}),
  };
}

/**
 * An offer as the caller gave it: the JSON object (by value), an `openid-credential-offer://` URI with
 * `credential_offer` or `credential_offer_uri`, an https URL of the offer, or `{credential_offer_uri}`;
 * by reference it is fetched through the outbound guard.
 */
export async function resolveOffer(wire: IssuerWire, input: unknown): Promise<CredentialOffer> {
  if (isJsonObject(input)) {
    const ref = input.credential_offer_uri;
    if (typeof ref === 'string') return fetchOffer(wire, ref);
    const byValue = input.credential_offer;
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
