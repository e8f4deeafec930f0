import type { IssuanceContext, IssuanceEvent } from './issuance-types.ts';

/** Wrong transaction codes an offer takes before its pre-authorized code burns. */
export const TX_CODE_ATTEMPTS = 5;

/** Whether an event comes while the offer lives. */
const before = (context: IssuanceContext, at: number) => at < context.expiresAt;

/** The arguments xstate gives a guard of this machine. */
type IssuanceGuardArgs = { context: IssuanceContext; event: IssuanceEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const issuanceGuards = {
  /** An offer made for the authorization code grant (its issuer_state) may be requested by PAR. */
  offersAuthorizationCode: ({ context }: IssuanceGuardArgs) =>
    context.grant === 'authorization_code' && context.par === undefined,
  /** The pushed request is used once, before it lapses. */
  requestUriLive: ({ context, event }: IssuanceGuardArgs) =>
    context.par !== undefined && event.at < context.par.requestExpiresAt,
  /** The code lives 60 s. */
  codeLive: ({ context, event }: IssuanceGuardArgs) =>
    context.authCodeExpiresAt !== undefined && event.at < context.authCodeExpiresAt,
  /** Tokens are issued only for a live offer. */
  offerLive: ({ context, event }: IssuanceGuardArgs) => before(context, event.at),
  /** The fifth wrong transaction code burns the pre-authorized code. */
  lastTxCodeAttempt: ({ context }: IssuanceGuardArgs) => context.txCodeFailures + 1 >= TX_CODE_ATTEMPTS,
  /** Once `credential_accepted` came, `credential_failure` is refused, even after a `credential_deleted`. */
  notificationAllowed: ({ context, event }: IssuanceGuardArgs) =>
    event.type === 'issuance.notified' &&
    !(context.credentialAccepted === true && event.event === 'credential_failure'),
  /** An issued credential with a status slot, not revoked: revocation is final. */
  statusChangeable: ({ context, event }: IssuanceGuardArgs) => {
    if (event.type !== 'credential.status_changed') return false;
    const credential = context.credentials[event.n];
    return credential?.listId !== undefined && credential.status !== 'revoked';
  },
  /** Nonce challenges count until the issuance has expired. */
  notExpired: ({ context }: IssuanceGuardArgs) => context.expiredReason === undefined,
  /** Only the first wallet exchange that names itself is kept. */
  notCorrelated: ({ context }: IssuanceGuardArgs) => context.walletExchange === undefined,
  /** An offer configured for deferral answers with a transaction id, any other with credentials. */
  issuesNow: ({ context }: IssuanceGuardArgs) => !context.deferred,
  defers: ({ context }: IssuanceGuardArgs) => context.deferred,
  /** A deferred credential is collected once it is ready. */
  deferredReady: ({ context, event }: IssuanceGuardArgs) => event.at >= (context.readyAt ?? Infinity),
};
