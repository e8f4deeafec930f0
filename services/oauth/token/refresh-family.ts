import { randomToken, sha256 } from '../../crypto/random.ts';
import { REFRESH_TOKEN_TTL_MS } from '../issuers.ts';
import type { OAuthGrantContext } from './context.ts';

/** A new refresh token family (RFC 9700 §4.14.2: rotation); the token is `<family>.<secret>`, only its hash kept. */
export async function startRefreshFamily(
  ctx: OAuthGrantContext,
  familyId: string,
  f: { sub: string; scope: string; authTime: number; jkt?: string; resource?: string; accessJti: string; at: number },
): Promise<string> {
  const secret = randomToken(32);
  await ctx.deps.families.create(familyId, {
    type: 'refresh.issued',
    at: f.at,
    tokenHash: sha256(secret),
    accessJti: f.accessJti,
    issuer: ctx.profile.issuer,
    clientId: ctx.client.client_id,
    sub: f.sub,
    scope: f.scope,
    authTime: f.authTime,
    ...(f.jkt ? { jkt: f.jkt } : {}),
    ...(f.resource ? { resource: f.resource } : {}),
    expiresAt: f.at + REFRESH_TOKEN_TTL_MS,
  });
  // A registered client's families are revoked with it (RFC 7592 §2.3).
  await ctx.deps.clients.noteUse(ctx.client, familyId);
  return `${familyId}.${secret}`;
}
