import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * A person's sign-in session at the SAML IdP, stream `saml-session:<hash of the cookie>`: who signed in
 * and how, each SP that received an assertion in it (with the NameID and SessionIndex it got), and a
 * single logout propagated to those SPs one by one (SAML profiles §4.4).
 */
export type SamlSessionEvent =
  | { type: 'session.started'; at: number; user: string; authnContext: string; expiresAt: number }
  | { type: 'session.reauthenticated'; at: number; authnContext: string }
  | { type: 'session.sp_joined'; at: number; sp: string; nameId: string; nameIdFormat: string; sessionIndex: string }
  | {
      type: 'logout.started';
      at: number;
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

interface SamlSessionParticipant {
  sp: string;
  nameId: string;
  nameIdFormat: string;
  sessionIndex: string;
}

export interface SamlSessionContext {
  user?: string;
  authnContext?: string;
  authnInstant?: number;
  expiresAt?: number;
  participants: SamlSessionParticipant[];
  logout?: {
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

type Args = { context: SamlSessionContext; event: SamlSessionEvent };
const spOf = (event: SamlSessionEvent) => ('sp' in event && typeof event.sp === 'string' ? event.sp : undefined);

/** The machine's guards: pure, named, importable on their own. */
export const samlSessionGuards = {
  /** A logout answer is taken only from an SP the logout is still waiting for. */
  awaitedSp: ({ context, event }: Args) => {
    const sp = spOf(event);
    return sp !== undefined && (context.logout?.pending ?? []).includes(sp);
  },
  /** The session ends only when no SP is still awaited. */
  noneAwaited: ({ context }: Args) => (context.logout?.pending ?? []).length === 0,
};

export const samlSessionUpdates = {
  start: (_: SamlSessionContext, e: Extract<SamlSessionEvent, { type: 'session.started' }>) => ({
    user: e.user,
    authnContext: e.authnContext,
    authnInstant: e.at,
    expiresAt: e.expiresAt,
    participants: [],
  }),
  reauthenticate: (_: SamlSessionContext, e: Extract<SamlSessionEvent, { type: 'session.reauthenticated' }>) => ({
    authnContext: e.authnContext,
    authnInstant: e.at,
  }),
  join: (context: SamlSessionContext, e: Extract<SamlSessionEvent, { type: 'session.sp_joined' }>) => ({
    participants: [
      ...context.participants.filter((p) => p.sp !== e.sp),
      { sp: e.sp, nameId: e.nameId, nameIdFormat: e.nameIdFormat, sessionIndex: e.sessionIndex },
    ],
  }),
  startLogout: (_: SamlSessionContext, e: Extract<SamlSessionEvent, { type: 'logout.started' }>) => ({
    logout: {
      ...(e.initiator !== undefined ? { initiator: e.initiator } : {}),
      ...(e.requestId !== undefined ? { requestId: e.requestId } : {}),
      ...(e.relayState !== undefined ? { relayState: e.relayState } : {}),
      ...(e.binding !== undefined ? { binding: e.binding } : {}),
      pending: [...e.pending],
      requests: e.requests.map(([sp, id]) => [sp, id] as [string, string]),
      failed: [],
    },
  }),
  answer: (context: SamlSessionContext, e: Extract<SamlSessionEvent, { type: 'logout.sp_answered' }>) => ({
    logout: {
      ...context.logout!,
      pending: context.logout!.pending.filter((sp) => sp !== e.sp),
      failed: e.ok ? context.logout!.failed : [...context.logout!.failed, e.sp],
    },
  }),
  end: (_: SamlSessionContext, e: Extract<SamlSessionEvent, { type: 'session.ended' }>) => ({ partial: e.partial }),
} satisfies Record<string, ContextUpdate<SamlSessionContext>>;

export const samlSessionMachine = setup({
  types: { context: {} as SamlSessionContext, events: {} as SamlSessionEvent },
  guards: samlSessionGuards,
  actions: updateActions<SamlSessionContext, SamlSessionEvent, typeof samlSessionUpdates>(samlSessionUpdates),
}).createMachine({
  id: 'samlSession',
  description:
    'A sign-in session at the SAML IdP (SAML profiles §4.1.4.2, §4.4), stream saml-session:<hash of the session cookie>: the demo user, the authentication context, the SPs it sent assertions to, and single logout propagated to each of them.',
  initial: 'absent',
  context: { participants: [] },
  states: {
    absent: {
      description: 'No sign-in yet.',
      on: {
        'session.started': {
          target: 'active',
          actions: 'start',
          description: 'A demo user signed in on the login page (the OpenID Provider’s users and form).',
        },
      },
    },
    active: {
      description: 'Signed in: an AuthnRequest without ForceAuthn is answered without a new login (SAML core §3.4.1).',
      on: {
        'session.reauthenticated': {
          actions: 'reauthenticate',
          description:
            'ForceAuthn, or a RequestedAuthnContext stronger than the session’s: the person signed in again (SAML core §3.4.1).',
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
            'A LogoutRequest from an SP, or the person at the IdP: every other SP of the session is told (SAML profiles §4.4.3.2).',
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
