import { signInSessionMachine, type SignInPlace, signInSessionStates } from '../../machines/sign-in-session.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import { AUTHN_CONTEXT } from '../saml/constants.ts';

/** How long a sign-in session lasts, from its first login. */
const SESSION_TTL_MS = 8 * 3_600_000;

/**
 * How a login on the demo users' form is recorded, in the SAML authentication context classes both
 * signers-in share: a password, over TLS or a loopback origin or not (saml-authn-context §3.4.19, §3.4.20).
 */
export const passwordLogin = (secure: boolean) => (secure ? AUTHN_CONTEXT.protectedPassword : AUTHN_CONTEXT.password);

/** A session its cookie names that is active and not expired. */
export interface LiveSession {
  user: string;
  authnContext: string;
  /** When the person last signed in (epoch ms): an ID token's `auth_time`, an assertion's AuthnInstant. */
  authnInstant: number;
  grants: ReadonlyArray<{ clientId: string; scope: string }>;
  participants: ReadonlyArray<{ sp: string; nameId: string; nameIdFormat: string; sessionIndex: string }>;
}

/**
 * The one sign-in session of this origin (issue 49: "one session for both"): the OpenID Provider and the
 * SAML IdP sign the demo users in on the same form, and each honours a session the other started. The
 * cookie is the capability; the log names the stream by its hash only.
 */
export class SignInSessions {
  readonly runtime: ActorRuntime<typeof signInSessionMachine>;

  constructor(
    log: EventLog,
    private readonly clock: Clock,
  ) {
    this.runtime = ActorRuntime.of(log, signInSessionMachine, 'sign-in-session');
  }

  /** The session a cookie names, when it is active and not expired. */
  async live(cookie: string | undefined): Promise<LiveSession | undefined> {
    if (!cookie) return undefined;
    const { snapshot } = await this.runtime.get(sha256(cookie));
    const c = snapshot.context;
    return signInSessionStates.active(snapshot) && c.user && (c.expiresAt ?? 0) > this.clock.now()
      ? {
          user: c.user,
          authnContext: c.authnContext!,
          authnInstant: c.authnInstant!,
          grants: c.grants,
          participants: c.participants,
        }
      : undefined;
  }

  /**
   * A demo user's password was checked at `place`: the session of this cookie is renewed when it is the
   * same person's, else a new session starts under a new cookie. Returns the cookie to use from now on.
   */
  async signedIn(
    cookie: string | undefined,
    user: string,
    authnContext: string,
    place: SignInPlace,
  ): Promise<{ cookie: string; isNew: boolean }> {
    const at = this.clock.now();
    const current = await this.live(cookie);
    if (cookie && current?.user === user) {
      await this.runtime.execute(sha256(cookie), { type: 'session.reauthenticated', at, authnContext, place });
      return { cookie, isNew: false };
    }
    const fresh = randomToken(32);
    await this.runtime.create(sha256(fresh), {
      type: 'session.started',
      at,
      user,
      authnContext,
      expiresAt: at + SESSION_TTL_MS,
      place,
    });
    return { cookie: fresh, isNew: true };
  }

  /** The person allowed an OIDC client these scopes in this session. */
  async consented(cookie: string, clientId: string, scope: string): Promise<void> {
    await this.runtime.execute(sha256(cookie), {
      type: 'session.client_consented',
      at: this.clock.now(),
      clientId,
      scope,
    });
  }

  /** Signs out a session no SAML SP must be told of (RP-initiated logout with no SP in the session). */
  async end(cookie: string): Promise<void> {
    const at = this.clock.now();
    await this.runtime.execute(sha256(cookie), { type: 'logout.started', at, pending: [], requests: [] });
    await this.runtime.execute(sha256(cookie), { type: 'session.ended', at, partial: false });
  }
}

/** OIDC Core §3.1.2.1: whether the person consented to every scope a client asks for in this session. */
export const consentCovers = (session: LiveSession, clientId: string, scope: string): boolean => {
  const granted = new Set(session.grants.find((g) => g.clientId === clientId)?.scope.split(' ') ?? []);
  return scope
    .split(' ')
    .filter(Boolean)
    .every((s) => granted.has(s));
};
