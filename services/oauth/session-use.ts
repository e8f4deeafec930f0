import { consentCovers, type LiveSession } from '../sessions/sign-in-sessions.ts';

/** What the OpenID Provider does with a person's sign-in session for one authorization request. */
export type SessionUse =
  /** Show the login page (no session, or the request asks for a new login). */
  | { kind: 'login' }
  /** Skip the login page: the session says who and since when; the consent page follows. */
  | { kind: 'session'; session: LiveSession }
  /** prompt=none answered without any page: signed in, and the client's scopes already consented. */
  | { kind: 'silent'; session: LiveSession }
  | { kind: 'refuse'; error: 'login_required' | 'consent_required'; description: string };

export interface SessionRequest {
  clientId: string;
  scope: string;
  prompt?: string;
  /** OIDC Core §3.1.2.1 `max_age`, in seconds. */
  maxAge?: number;
}

/**
 * OIDC Core §3.1.2.1 and §3.1.2.3: whether a session may stand for the login. `prompt=login` (and
 * `select_account`, which the login page serves) asks for a new one; `max_age` refuses a session older
 * than it; an `id_token_hint` naming another person makes the session unusable. With `prompt=none` no
 * page may be shown, so a missing or unusable session is `login_required`, and scopes the person has not
 * consented to in this session are `consent_required`.
 */
export function useOfSession(
  request: SessionRequest,
  session: LiveSession | undefined,
  nowMs: number,
  /** False when a verified `id_token_hint` names someone other than the session's person. */
  hintMatches: (session: LiveSession) => boolean,
): SessionUse {
  const prompts = (request.prompt ?? '').split(' ').filter(Boolean);
  const fresh = (s: LiveSession) => request.maxAge === undefined || nowMs - s.authnInstant <= request.maxAge * 1000;
  const usable = session && fresh(session) && hintMatches(session) ? session : undefined;
  if (prompts.includes('none')) {
    if (!usable)
      return {
        kind: 'refuse',
        error: 'login_required',
        description: session
          ? 'The sign-in session is older than max_age or belongs to someone else than id_token_hint'
          : 'No sign-in session exists in this browser',
      };
    if (!consentCovers(usable, request.clientId, request.scope))
      return {
        kind: 'refuse',
        error: 'consent_required',
        description: 'The person has not allowed this client these scopes in this session',
      };
    return { kind: 'silent', session: usable };
  }
  if (!usable || prompts.includes('login') || prompts.includes('select_account')) return { kind: 'login' };
  return { kind: 'session', session: usable };
}
