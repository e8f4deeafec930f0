import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/** Where the person signed in: the OpenID Provider's login page or the SAML IdP's (the same demo users). */
export type SignInPlace = 'openid-provider' | 'saml-idp';

/**
 * A person's one sign-in session at this origin, shared by the OpenID Provider and the SAML IdP, stream
 * `sign-in-session:<hash of the cookie>`: who signed in, where and how; the OIDC clients the person
 * consented to (so that `prompt=none` can be answered, OIDC Core §3.1.2.1); each SAML SP that received an
 * assertion (with the NameID and SessionIndex it got); and a single logout propagated to those SPs one
 * by one (SAML profiles §4.4), whoever started it.
 */
export type SignInSessionEvent =
  | { type: 'session.started'; at: number; user: string; authnContext: string; expiresAt: number; place: SignInPlace }
  | { type: 'session.reauthenticated'; at: number; authnContext: string; place: SignInPlace }
  | { type: 'session.client_consented'; at: number; clientId: string; scope: string }
  | { type: 'session.sp_joined'; at: number; sp: string; nameId: string; nameIdFormat: string; sessionIndex: string }
  | {
      type: 'logout.started';
      at: number;
      /** The OpenID Provider's RP-initiated logout: where the browser goes once every SP answered. */
      returnTo?: string;
      /** The SP whose LogoutRequest started it; absent when the person signed out at the IdP. */
      initiator?: string;
      requestId?: string;
      relayState?: string;
      binding?: string;
      pending: string[];
      /** The ID of the LogoutRequest each pending SP is sent: [SP entity ID, request ID]. */
      requests: Array<[string, string]>;
    }
  | { type: 'logout.sp_answered'; at: number; sp: string; ok: boolean }
  | { type: 'session.ended'; at: number; partial: boolean };

interface SamlParticipant {
  sp: string;
  nameId: string;
  nameIdFormat: string;
  sessionIndex: string;
}

export interface SignInSessionContext {
  user?: string;
  authnContext?: string;
  authnInstant?: number;
  expiresAt?: number;
  /** Each OIDC client the person consented to, with every scope consented so far. */
  grants: Array<{ clientId: string; scope: string }>;
  participants: SamlParticipant[];
  logout?: {
    returnTo?: string;
    initiator?: string;
    requestId?: string;
    relayState?: string;
    binding?: string;
    pending: string[];
    requests: Array<[string, string]>;
    failed: string[];
  };
  partial?: boolean;
}

type Args = { context: SignInSessionContext; event: SignInSessionEvent };
const spOf = (event: SignInSessionEvent) => ('sp' in event && typeof event.sp === 'string' ? event.sp : undefined);

/** The machine's guards: pure, named, importable on their own. */
export const signInSessionGuards = {
  /** A logout answer is taken only from an SP the logout is still waiting for. */
  awaitedSp: ({ context, event }: Args) => {
    const sp = spOf(event);
    return sp !== undefined && (context.logout?.pending ?? []).includes(sp);
  },
  /** The session ends only when no SP is still awaited. */
  noneAwaited: ({ context }: Args) => (context.logout?.pending ?? []).length === 0,
};

export const signInSessionUpdates = {
  start: (_: SignInSessionContext, e: Extract<SignInSessionEvent, { type: 'session.started' }>) => ({
    user: e.user,
    authnContext: e.authnContext,
    authnInstant: e.at,
    expiresAt: e.expiresAt,
    grants: [],
    participants: [],
  }),
  reauthenticate: (_: SignInSessionContext, e: Extract<SignInSessionEvent, { type: 'session.reauthenticated' }>) => ({
    authnContext: e.authnContext,
    authnInstant: e.at,
  }),
  grant: (context: SignInSessionContext, e: Extract<SignInSessionEvent, { type: 'session.client_consented' }>) => {
    const before = context.grants.find((g) => g.clientId === e.clientId)?.scope.split(' ') ?? [];
    const scope = [...new Set([...before, ...e.scope.split(' ')])].filter(Boolean).join(' ');
    return { grants: [...context.grants.filter((g) => g.clientId !== e.clientId), { clientId: e.clientId, scope }] };
  },
  join: (context: SignInSessionContext, e: Extract<SignInSessionEvent, { type: 'session.sp_joined' }>) => ({
    participants: [
      ...context.participants.filter((p) => p.sp !== e.sp),
      { sp: e.sp, nameId: e.nameId, nameIdFormat: e.nameIdFormat, sessionIndex: e.sessionIndex },
    ],
  }),
  startLogout: (_: SignInSessionContext, e: Extract<SignInSessionEvent, { type: 'logout.started' }>) => ({
    logout: {
      ...(e.returnTo !== undefined ? { returnTo: e.returnTo } : {}),
      ...(e.initiator !== undefined ? { initiator: e.initiator } : {}),
      ...(e.requestId !== undefined ? { requestId: e.requestId } : {}),
      ...(e.relayState !== undefined ? { relayState: e.relayState } : {}),
      ...(e.binding !== undefined ? { binding: e.binding } : {}),
      pending: [...e.pending],
      requests: e.requests.map(([sp, id]) => [sp, id] as [string, string]),
      failed: [],
    },
  }),
  answer: (context: SignInSessionContext, e: Extract<SignInSessionEvent, { type: 'logout.sp_answered' }>) => ({
    logout: {
      ...context.logout!,
      pending: context.logout!.pending.filter((sp) => sp !== e.sp),
      failed: e.ok ? context.logout!.failed : [...context.logout!.failed, e.sp],
    },
  }),
  end: (_: SignInSessionContext, e: Extract<SignInSessionEvent, { type: 'session.ended' }>) => ({ partial: e.partial }),
} satisfies Record<string, ContextUpdate<SignInSessionContext>>;

export const signInSessionMachine = setup({
  types: { context: {} as SignInSessionContext, events: {} as SignInSessionEvent },
  guards: signInSessionGuards,
  actions: updateActions<SignInSessionContext, SignInSessionEvent, typeof signInSessionUpdates>(signInSessionUpdates),
}).createMachine({
  id: 'signInSession',
  description:
    'One sign-in session shared by the OpenID Provider and the SAML IdP (OIDC Core §3.1.2.1, SAML profiles §4.1.4.2, §4.4), stream sign-in-session:<hash of the session cookie>: the demo user, when and how they signed in, the clients they consented to, the SPs that got assertions, and single logout propagated to each of them.',
  initial: 'absent',
  context: { grants: [], participants: [] },
  states: {
    absent: {
      description: 'No sign-in yet.',
      on: {
        'session.started': {
          target: 'active',
          actions: 'start',
          description:
            'A demo user signed in on the login page, of the OpenID Provider or of the SAML IdP (the same users and form).',
        },
      },
    },
    active: {
      description:
        'Signed in: an AuthnRequest without ForceAuthn, or an OIDC request without prompt=login or an exceeded max_age, is answered without a new login (SAML core §3.4.1, OIDC Core §3.1.2.1).',
      on: {
        'session.reauthenticated': {
          actions: 'reauthenticate',
          description:
            'ForceAuthn, a RequestedAuthnContext stronger than the session’s, prompt=login or max_age: the person signed in again (SAML core §3.4.1, OIDC Core §3.1.2.1).',
        },
        'session.client_consented': {
          actions: 'grant',
          description:
            'The person allowed an OIDC client these scopes: a later prompt=none from it is answered without a page (OIDC Core §3.1.2.1).',
        },
        'session.sp_joined': {
          actions: 'join',
          description:
            'An assertion was sent to an SP; its NameID and SessionIndex are kept for logout (SAML core §3.7.1).',
        },
        'logout.started': {
          target: 'loggingOut',
          actions: 'startLogout',
          description:
            'A LogoutRequest from an SP, the person at the IdP, or RP-initiated logout at the OpenID Provider: every other SP of the session is told (SAML profiles §4.4.3.2).',
        },
      },
    },
    loggingOut: {
      description: 'Each other SP is sent a LogoutRequest in turn; the session ends when none is awaited.',
      on: {
        'logout.sp_answered': {
          guard: 'awaitedSp',
          actions: 'answer',
          description:
            'An SP answered with its LogoutResponse (or could not): a failure makes the logout partial (SAML core §3.7.3.2).',
        },
        'session.ended': {
          guard: 'noneAwaited',
          target: 'ended',
          actions: 'end',
          description:
            'No SP is awaited: the initiator gets Success, with PartialLogout when one failed (SAML core §3.7.3.2).',
        },
      },
    },
    ended: { type: 'final', description: 'Signed out; the cookie no longer names a session.' },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const signInSessionStates = {
  /** Signed in (expiry is read from the context). */
  active: inState('active'),
  /** Single logout is under way. */
  loggingOut: inState('loggingOut'),
};
