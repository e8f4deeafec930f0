import type { VerifiedProof } from '../../dpop/proof.ts';
import { TokenEndpoint } from '../../oauth/token/endpoint.ts';
import { GrantTable, type TokenForm } from '../../oauth/token/grant-table.ts';
import type { AttestedClient } from '../attestation.ts';
import type { PresentedRequest } from '../core.ts';
import { offerOf } from '../request-rules.ts';
import { authorizationCodeGrant } from './authorization-code.ts';
import type { IssuerGrantContext, IssuerGrantHandler } from './context.ts';
import type { TokenResponse } from './mint.ts';
import { preAuthorizedCodeGrant } from './pre-authorized-code.ts';

export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** OpenID4VCI 1.0 §6.1: the issuer's grants, one file each. */
const ISSUER_GRANTS = new GrantTable<IssuerGrantHandler>([
  [PRE_AUTHORIZED_GRANT, preAuthorizedCodeGrant],
  ['authorization_code', authorizationCodeGrant],
]);

/** The offer a token request's code names, so that a DPoP nonce challenge it meets is recorded there. */
const offerOfTokenRequest = (form: TokenForm) => offerOf(form['pre-authorized_code'] ?? form.code);

export interface IssuerTokenServer {
  /** OAuth 2.0 Attestation-Based Client Authentication: the attested client, when the request carries one. */
  attestedClient(request: PresentedRequest): Promise<AttestedClient | undefined>;
  /** The DPoP proof at the authorization server; a nonce challenge is recorded on the offer when known. */
  dpop(offerId: string | undefined, request: PresentedRequest): Promise<VerifiedProof | undefined>;
  context: Omit<IssuerGrantContext, 'attested' | 'proof'>;
}

/**
 * `POST /oid4vci/token`: the core's TokenEndpoint configured for the issuer. Clients are public or
 * attested (no secrets), every client may use every grant, and tokens are the issuer's own.
 */
export function issuerTokenEndpoint(server: IssuerTokenServer) {
  return new TokenEndpoint<PresentedRequest, AttestedClient | undefined, IssuerGrantContext, TokenResponse>({
    grants: ISSUER_GRANTS,
    authenticateClient: (request) => server.attestedClient(request),
    checkProof: (request, form) => server.dpop(offerOfTokenRequest(form), request),
    context: ({ client, proof }) => ({ ...server.context, attested: client, proof }),
  });
}
