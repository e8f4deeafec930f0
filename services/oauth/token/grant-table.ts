import { oauthError } from '../../errors.ts';

export type TokenForm = Record<string, string | undefined>;

/**
 * RFC 6749 §3.2: a token endpoint is its grant table, `grant_type → handler`, one handler per grant.
 * Every authorization server of Portico (the OpenID Provider, the OID4VCI issuer, AgentAuth) is
 * configured with one; what differs between them is the table and what its handlers are given.
 */
export class GrantTable<Handler> {
  private readonly grants: ReadonlyMap<string, Handler>;

  constructor(grants: Iterable<readonly [string, Handler]>) {
    this.grants = new Map(grants);
  }

  get grantTypes(): string[] {
    return [...this.grants.keys()];
  }

  /** RFC 6749 §5.2: a request without `grant_type` is `invalid_request`. */
  grantTypeOf(form: TokenForm): string {
    const grantType = form.grant_type;
    if (!grantType) throw oauthError('invalid_request', 'grant_type is required');
    return grantType;
  }

  /** RFC 6749 §5.2: a grant the server does not issue tokens for is `unsupported_grant_type`. */
  handlerFor(grantType: string): Handler {
    const handler = this.grants.get(grantType);
    if (!handler)
      throw oauthError('unsupported_grant_type', `This token endpoint supports: ${this.grantTypes.join(', ')}`);
    return handler;
  }
}
