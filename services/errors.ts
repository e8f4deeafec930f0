/**
 * One error class for every OAuth-style error. Thrown anywhere, rendered once by the HTTP layer as
 * `{error, error_description}` with `status`.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    /** Extra response headers, e.g. WWW-Authenticate. */
    readonly headers: Record<string, string> = {},
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }

  /** Read by fastify plugins that throw this error (e.g. the rate limiter). */
  get statusCode(): number {
    return this.status;
  }

  /** Members a response adds beside `error` and `error_description` (e.g. the wallet's `_protocol_exchanges`). */
  extra?: Record<string, unknown>;

  toJSON(): { error: string; error_description: string } {
    return { ...this.extra, error: this.error, error_description: this.description };
  }
}

export const invalidRequest = (description: string) => new OAuthError('invalid_request', description, 400);
export const notFound = (description = 'No such resource') => new OAuthError('not_found', description, 404);
