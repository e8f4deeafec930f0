import { GuardedHttp } from './guarded-http.ts';

/** What a client metadata document or a sector identifier document may cost us (docs/oauth.md). */
export const DOCUMENT_FETCH_LIMITS = { timeoutMs: 5_000, maxBytes: 5 * 1024, maxRedirects: 0 } as const;

/**
 * The outbound guard for documents a client names: client metadata documents, `sector_identifier_uri`
 * and `jwks_uri`. https only to public addresses (loopback with the test hook), no redirects, 5 KiB
 * within 5 s. Our own origin is let in: the flow runner's client publishes its document here.
 */
export function documentGuard(ownOrigin: string, allowLoopback: boolean): GuardedHttp {
  return new GuardedHttp({
    trustedOrigins: new Set([ownOrigin]),
    allowExternal: true,
    allowLoopback,
    ...DOCUMENT_FETCH_LIMITS,
  });
}
