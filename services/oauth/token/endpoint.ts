import type { VerifiedProof } from '../../dpop/proof.ts';
import { oauthError } from '../../errors.ts';
import type { GrantTable, TokenForm } from './grant-table.ts';

/** A grant handler: the checked request's context and its form, to a token response. */
export type GrantHandler<Context, Response> = (ctx: Context, form: TokenForm) => Promise<Response>;

/**
 * What makes one authorization server's token endpoint its own: its grants, how it knows its clients
 * (RFC 6749 §2.3 client authentication, or an OAuth client attestation), where its DPoP proofs are
 * checked, and what its grant handlers are given (issuer, keys, token format).
 */
export interface TokenServer<Request, Client, Context, Response> {
  grants: GrantTable<GrantHandler<Context, Response>>;
  authenticateClient(request: Request): Promise<Client>;
  /** RFC 9449 §5: the request's DPoP proof at this server, when it carries one. */
  checkProof(request: Request, form: TokenForm): Promise<VerifiedProof | undefined>;
  /** RFC 6749 §5.2 `unauthorized_client`: whether this client may use this grant (all may, when absent). */
  mayUseGrant?(client: Client, grantType: string): boolean;
  context(checked: { client: Client; proof: VerifiedProof | undefined }): Context;
}

/**
 * The token endpoint (RFC 6749 §3.2), one implementation for every authorization server of Portico:
 * `grant_type` present, the client authenticated, its DPoP proof checked, the grant supported and
 * allowed to this client, then the grant's handler answers. The checks run in that order everywhere.
 */
export class TokenEndpoint<Request, Client, Context, Response> {
  constructor(private readonly server: TokenServer<Request, Client, Context, Response>) {}

  async handle(form: TokenForm, request: Request): Promise<Response> {
    const { grants } = this.server;
    const grantType = grants.grantTypeOf(form);
    const client = await this.server.authenticateClient(request);
    const proof = await this.server.checkProof(request, form);
    const grant = grants.handlerFor(grantType);
    if (this.server.mayUseGrant && !this.server.mayUseGrant(client, grantType))
      throw oauthError('unauthorized_client', `This client may not use the ${grantType} grant`);
    return grant(this.server.context({ client, proof }), form);
  }
}
