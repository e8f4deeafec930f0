import { jsonObject } from '../response-schemas.ts';

/**
 * The contract of `POST /oid4vci/offers` (decisions §8): every member described, its allowed values
 * listed, and a worked example of request and answer, as the OpenAPI document shows them.
 */
export function offerSchemas(configurationIds: readonly string[], users: readonly string[]) {
  const body = {
    type: 'object',
    nullable: true,
    additionalProperties: false,
    description:
      'What to offer. Every member is optional: an empty body offers the first configuration to alice with a pre-authorized code.',
    properties: {
      credential_configuration_ids: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        description: 'The configurations to offer (OpenID4VCI 1.0 §4.1.1); the issuer metadata lists each.',
        items: { type: 'string', maxLength: 100, enum: [...configurationIds] },
      },
      grant: {
        type: 'string',
        enum: ['pre-authorized_code', 'authorization_code'],
        description:
          'pre-authorized_code (default): the offer carries a code the wallet redeems at /oid4vci/token. authorization_code: the offer carries issuer_state, and the wallet goes through PAR, login and consent.',
      },
      tx_code: {
        type: 'boolean',
        description:
          'Pre-authorized code only: also require a six-digit transaction code, answered as tx_code_value (to show the person, never to the wallet directly).',
      },
      deferred: {
        type: 'boolean',
        description:
          'Issue deferred: the credential endpoint answers 202 with a transaction_id, collected at /oid4vci/deferred_credential 3 s later.',
      },
      by_value: {
        type: 'boolean',
        description: 'Put the whole offer in offer_url (credential_offer=) instead of a credential_offer_uri to fetch.',
      },
      user: {
        type: 'string',
        maxLength: 50,
        enum: [...users],
        description: 'The demo user whose data the credential carries (default alice).',
      },
    },
    examples: [{ credential_configuration_ids: ['UniversityDegreeCredential'], tx_code: true }],
  };
  const created = {
    ...jsonObject('The offer. Hand offer_url to a wallet (as a link or QR code); show tx_code_value to the person.', {
      offer_id: { type: 'string', description: 'Names the offer; its status is at status_uri.' },
      credential_offer: { type: 'object', description: 'The offer itself (by_value).' },
      credential_offer_uri: {
        type: 'string',
        description: 'Where the wallet fetches the offer (by reference, the default).',
      },
      offer_url: {
        type: 'string',
        description: 'openid-credential-offer://?credential_offer_uri=… (or credential_offer=…): what a wallet opens.',
      },
      pre_authorized_code: {
        type: 'string',
        description: 'The pre-authorized code inside the offer, for a caller playing the wallet itself.',
      },
      tx_code_value: { type: 'string', description: 'With tx_code: the six digits the person types into the wallet.' },
      issuer_state: {
        type: 'string',
        description: 'With grant authorization_code: the value the wallet sends back at PAR.',
      },
      status_uri: {
        type: 'string',
        description: 'GET: what the wallet did with the offer, read from its event stream.',
      },
      status_token: {
        type: 'string',
        description:
          "Yours alone: send it as Authorization: Bearer to POST /oid4vci/offers/{offer_id}/credentials/{n}/status to suspend, reinstate or revoke this offer's credentials. Kept only as a hash.",
      },
      expires_in: { type: 'integer', description: 'Seconds the offer lives: 600.' },
    }),
    examples: [
      {
        offer_id: 'q3mY0d5oX1fKp8Zr',
        credential_offer_uri: 'http://localhost:3000/oid4vci/credential-offer/q3mY0d5oX1fKp8Zr',
        offer_url:
          'openid-credential-offer://?credential_offer_uri=http%3A%2F%2Flocalhost%3A3000%2Foid4vci%2Fcredential-offer%2Fq3mY0d5oX1fKp8Zr',
        pre_authorized_code: 'q3mY0d5oX1fKp8Zr.N0tAReaLc0deButTheShapeOfOne00000',
        tx_code_value: '493027',
        status_uri: 'http://localhost:3000/oid4vci/offers/q3mY0d5oX1fKp8Zr/status',
        status_token: 'pL2v9cQ1mW4xT7bN0sK3dF6hJ8gA5zR2yE1uI9oP3qM',
        expires_in: 600,
      },
    ],
  };
  return { body, created };
}

/** The whole pre-authorized journey, as the operation's description in the OpenAPI document. */
export const OFFER_WORKED_EXAMPLE = [
  'Worked example (pre-authorized code with a transaction code):',
  '1. POST /oid4vci/offers {"credential_configuration_ids":["UniversityDegreeCredential"],"tx_code":true} -> 201 {offer_id, offer_url, pre_authorized_code, tx_code_value, status_uri, status_token, expires_in: 600}.',
  '2. Hand offer_url to a wallet (the wallet harness: POST {wallet}/api/import {"offer":"<offer_url>","tx_code":"<tx_code_value>"}), or play the wallet:',
  '3. POST /oid4vci/token (form) grant_type=urn:ietf:params:oauth:grant-type:pre-authorized_code&pre-authorized_code=<code>&tx_code=<digits> -> {access_token, token_type: "Bearer", expires_in: 300}.',
  '4. POST /oid4vci/nonce -> {c_nonce}; sign a key proof (typ openid4vci-proof+jwt, aud = {base}/oid4vci, iat, nonce, jwk header).',
  '5. POST /oid4vci/credential (Authorization: Bearer <token>) {"credential_configuration_id":"UniversityDegreeCredential","proofs":{"jwt":["<proof>"]}} -> {credentials: [{credential}], notification_id}.',
  '6. GET status_uri reads what happened: offered, offer_fetched, token_issued, credential_issued, notified.',
].join('\n');
