import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * The two sides of one SAML Web SSO exchange, each its own stream: the IdP's handling of an
 * AuthnRequest (`saml-authn:<id>`) and our SP's login (`saml-login:<request ID>`). Every refusal is an
 * event naming the check that refused, so the log says why.
 */
export type SamlAuthnEvent =
  | {
      type: 'authn.requested';
      at: number;
      sp: string;
      requestId?: string;
      acsUrl: string;
      binding: string;
      relayState?: string;
      nameIdFormat: string;
      forceAuthn: boolean;
      isPassive: boolean;
      authnContext?: string;
      /** The named checks the request passed. */
      checks: string[];
    }
  | { type: 'authn.refused'; at: number; sp?: string; requestId?: string; check: string; reason: string }
  | { type: 'authn.answered'; at: number; user: string; nameId: string; sessionIndex: string; encrypted: boolean };

export interface SamlAuthnContext {
  request?: Omit<Extract<SamlAuthnEvent, { type: 'authn.requested' }>, 'type' | 'at'>;
  refusal?: { check: string; reason: string };
  answer?: { user: string; nameId: string; sessionIndex: string; encrypted: boolean };
}

export const samlAuthnUpdates = {
  request: (
    _: SamlAuthnContext,
    { type: _t, at: _a, ...request }: Extract<SamlAuthnEvent, { type: 'authn.requested' }>,
  ) => ({
    request,
  }),
  refuse: (_: SamlAuthnContext, e: Extract<SamlAuthnEvent, { type: 'authn.refused' }>) => ({
    refusal: { check: e.check, reason: e.reason },
  }),
  answer: (_: SamlAuthnContext, e: Extract<SamlAuthnEvent, { type: 'authn.answered' }>) => ({
    answer: { user: e.user, nameId: e.nameId, sessionIndex: e.sessionIndex, encrypted: e.encrypted },
  }),
} satisfies Record<string, ContextUpdate<SamlAuthnContext>>;

const refused = {
  target: 'refused' as const,
  actions: 'refuse' as const,
  description:
    'A named check refused it: a SAML status response to a trusted ACS URL, or an error page (SAML profiles §4.1.3.5).',
};

export const samlAuthnMachine = setup({
  types: { context: {} as SamlAuthnContext, events: {} as SamlAuthnEvent },
  actions: updateActions<SamlAuthnContext, SamlAuthnEvent, typeof samlAuthnUpdates>(samlAuthnUpdates),
}).createMachine({
  id: 'samlAuthn',
  description:
    'An AuthnRequest at the SAML IdP (SAML core §3.4, profiles §4.1.4.1), stream saml-authn:<id>: checked (issuer, signature, ACS URL, replay, time, Destination, policy), then answered with a Response once the person is signed in, or refused with the check that failed.',
  initial: 'absent',
  context: {},
  states: {
    absent: {
      description: 'Not received.',
      on: {
        'authn.requested': {
          target: 'requested',
          actions: 'request',
          description: 'Every check passed: the person signs in (or the session answers) next (SAML core §3.4.1).',
        },
        'authn.refused': refused,
      },
    },
    requested: {
      description: 'Waiting for the person to sign in.',
      on: {
        'authn.answered': {
          target: 'answered',
          actions: 'answer',
          description:
            'A Response with the assertion went to the ACS URL over HTTP-POST (SAML profiles §4.1.4.2, §4.1.4.5).',
        },
        'authn.refused': refused,
      },
    },
    answered: { type: 'final', description: 'Answered once; the request cannot be answered again.' },
    refused: { type: 'final', description: 'Refused, with the check named.' },
  },
});

export type SamlLoginEvent =
  | {
      type: 'login.requested';
      at: number;
      idp: string;
      requestId: string;
      relayState?: string;
      binding: string;
      /** The signing certificates (PEM) of an IdP other than ours, from its metadata: what its Response is checked with. */
      idpSigning?: string[];
      /** A flow run waits for this login: the ACS sends the browser back to `{base}/runs/callback`. */
      returnToRun?: boolean;
    }
  | {
      type: 'login.consumed';
      at: number;
      idp: string;
      assertionId: string;
      nameId: string;
      nameIdFormat: string;
      sessionIndex?: string;
      attributes: Record<string, string[]>;
      checks: string[];
      /** The hash of the SP session cookie set at the ACS (single logout finds the login by it). */
      sessionHash?: string;
    }
  | { type: 'login.refused'; at: number; check: string; reason: string }
  | { type: 'logout.sent'; at: number; requestId: string }
  | { type: 'login.ended'; at: number; initiator: 'idp' | 'sp'; partial: boolean };

export interface SamlLoginContext {
  request?: Omit<Extract<SamlLoginEvent, { type: 'login.requested' }>, 'type' | 'at'>;
  login?: Omit<Extract<SamlLoginEvent, { type: 'login.consumed' }>, 'type' | 'at'>;
  refusal?: { check: string; reason: string };
  logoutRequestId?: string;
  ended?: { initiator: 'idp' | 'sp'; partial: boolean };
}

export const samlLoginUpdates = {
  request: (
    _: SamlLoginContext,
    { type: _t, at: _a, ...request }: Extract<SamlLoginEvent, { type: 'login.requested' }>,
  ) => ({
    request,
  }),
  consume: (
    _: SamlLoginContext,
    { type: _t, at: _a, ...login }: Extract<SamlLoginEvent, { type: 'login.consumed' }>,
  ) => ({
    login,
  }),
  refuse: (_: SamlLoginContext, e: Extract<SamlLoginEvent, { type: 'login.refused' }>) => ({
    refusal: { check: e.check, reason: e.reason },
  }),
  sendLogout: (_: SamlLoginContext, e: Extract<SamlLoginEvent, { type: 'logout.sent' }>) => ({
    logoutRequestId: e.requestId,
  }),
  end: (_: SamlLoginContext, e: Extract<SamlLoginEvent, { type: 'login.ended' }>) => ({
    ended: { initiator: e.initiator, partial: e.partial },
  }),
} satisfies Record<string, ContextUpdate<SamlLoginContext>>;

export const samlLoginMachine = setup({
  types: { context: {} as SamlLoginContext, events: {} as SamlLoginEvent },
  actions: updateActions<SamlLoginContext, SamlLoginEvent, typeof samlLoginUpdates>(samlLoginUpdates),
}).createMachine({
  id: 'samlLogin',
  description:
    'A login at our SAML SP (SAML profiles §4.1.4.3), stream saml-login:<request ID, or the assertion ID when unsolicited>: the AuthnRequest sent, then the Response consumed once every named check passed, or refused with the check that caught it.',
  initial: 'absent',
  context: {},
  states: {
    absent: {
      description: 'Nothing sent or received.',
      on: {
        'login.requested': {
          target: 'requested',
          actions: 'request',
          description: 'An AuthnRequest went to the IdP (SAML core §3.4.1); its ID comes back as InResponseTo.',
        },
        'login.consumed': {
          target: 'consumed',
          actions: 'consume',
          description: 'An unsolicited (IdP-initiated) Response passed every check (SAML profiles §4.1.5).',
        },
        'login.refused': {
          target: 'refused',
          actions: 'refuse',
          description: 'An unsolicited Response failed a check.',
        },
      },
    },
    requested: {
      description: 'Waiting for the Response at the ACS.',
      on: {
        'login.consumed': {
          target: 'consumed',
          actions: 'consume',
          description:
            'The Response passed every check (SAML profiles §4.1.4.3): signature, issuer, audience, recipient, InResponseTo, time, replay.',
        },
        'login.refused': {
          target: 'refused',
          actions: 'refuse',
          description: 'A check refused the Response; the request is spent (SAML profiles §4.1.4.3).',
        },
      },
    },
    consumed: {
      description: 'Signed in; the request cannot be answered twice.',
      on: {
        'logout.sent': {
          target: 'loggingOut',
          actions: 'sendLogout',
          description:
            'The person signs out at the SP: a signed LogoutRequest goes to the IdP (SAML profiles §4.4.3.1).',
        },
        'login.ended': {
          target: 'ended',
          actions: 'end',
          description:
            'The IdP’s signed LogoutRequest named this login: it ends, and the SP answers Success (SAML profiles §4.4.3.3).',
        },
      },
    },
    loggingOut: {
      description: 'Waiting for the IdP’s LogoutResponse, after it told the other SPs.',
      on: {
        'login.ended': {
          target: 'ended',
          actions: 'end',
          description: 'The IdP answered; PartialLogout when another SP could not be signed out (SAML core §3.7.3.2).',
        },
      },
    },
    ended: { type: 'final', description: 'Signed out.' },
    refused: { type: 'final', description: 'Refused, with the check named.' },
  },
});

/** The machines' deciders: what their states mean to the services that ask (machines/deciders.ts). */
export const samlExchangeStates = {
  /** An AuthnRequest (IdP) or a login (our SP) waits for its answer. */
  awaitingAnswer: inState('requested'),
  /** Our SP consumed the login's Response: signed in. */
  consumed: inState('consumed'),
  /** Our SP's single logout of this login is under way. */
  loggingOut: inState('loggingOut'),
};
