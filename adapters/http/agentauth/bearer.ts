import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../../../services/errors.ts';

/** RFC 6750 section 2.1: the token of an `Authorization: Bearer` header, or undefined. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
  return match?.[1];
}

export const invalidToken = (description: string) =>
  new OAuthError('invalid_token', description, 401, {
    'www-authenticate': `Bearer error="invalid_token", error_description="${description.replace(/"/g, "'")}"`,
  });
