import { CAEP, EVENT_TYPES, RISC, SSF, STREAM_UPDATED, VERIFICATION, eventBodyFault } from './event-types.ts';

/** What each event type says, in a line (CAEP 1.0 §3, RISC 1.0 §2, SSF 1.0 §8.1.4-5). */
const EVENT_MEANINGS: Readonly<Record<string, string>> = {
  [`${CAEP}session-revoked`]: 'The sessions of the subject were revoked; a receiver ends them too.',
  [`${CAEP}token-claims-change`]: 'Claims of tokens about the subject changed; claims holds the new values.',
  [`${CAEP}credential-change`]: 'A credential of the subject was created, revoked, updated or deleted.',
  [`${CAEP}assurance-level-change`]: 'The authentication assurance level of the subject changed.',
  [`${CAEP}device-compliance-change`]: 'A device moved between compliant and not compliant.',
  [`${CAEP}session-established`]: 'A session of the subject was established at the transmitter.',
  [`${CAEP}session-presented`]: 'A session of the subject was presented to the transmitter.',
  [`${CAEP}risk-level-change`]: 'The risk level the transmitter assigns to the principal changed.',
  [`${RISC}account-credential-change-required`]: 'The account must change its credential (e.g. after a breach).',
  [`${RISC}account-purged`]: 'The account was permanently deleted.',
  [`${RISC}account-disabled`]: 'The account was disabled; it may be enabled later.',
  [`${RISC}account-enabled`]: 'The account was enabled again.',
  [`${RISC}identifier-changed`]: 'The identifier (email or phone) of the subject changed.',
  [`${RISC}identifier-recycled`]: 'The identifier now belongs to someone else.',
  [`${RISC}credential-compromise`]: 'A credential of the subject was found compromised.',
  [`${RISC}opt-in`]: 'The subject opted in to the sharing of signals.',
  [`${RISC}opt-out-initiated`]: 'The subject asked to opt out; it takes effect later.',
  [`${RISC}opt-out-cancelled`]: 'The subject cancelled its opt-out.',
  [`${RISC}opt-out-effective`]: 'The opt-out took effect: no more events about the subject.',
  [`${RISC}recovery-activated`]: 'Account recovery was activated.',
  [`${RISC}recovery-information-changed`]: 'Recovery information of the account changed.',
  [VERIFICATION]: 'Asked for by the receiver to check the stream end to end; state echoes its value.',
  [STREAM_UPDATED]: 'The status of the stream changed; sub_id names the stream.',
};

/** What each event field says. */
const FIELD_MEANINGS: Readonly<Record<string, string>> = {
  event_timestamp: 'When the event happened (seconds since the epoch)',
  initiating_entity: 'Who caused it: admin, user, policy or system',
  reason_admin: 'Why, for administrators and logs (language tag to text)',
  reason_user: 'Why, for the end user (language tag to text)',
  claims: 'The changed claims with their new values',
  credential_type: 'The kind of credential (password, x509, verifiable-credential, …)',
  change_type: 'create, revoke, update or delete',
  friendly_name: "The credential's display name",
  x509_issuer: 'Issuer of the X.509 certificate',
  x509_serial: 'Serial number of the X.509 certificate',
  fido2_aaguid: 'FIDO2 authenticator attestation GUID',
  namespace: 'Where the level values come from (RFC8176, NIST-AAL, …)',
  current_level: 'The level now',
  previous_level: 'The level before, when known',
  change_direction: 'increase or decrease',
  previous_status: 'Compliance before the change',
  current_status: 'Compliance now',
  ips: 'IP addresses of the session',
  fp_ua: 'A fingerprint of the user agent',
  acr: 'Authentication context class of the session',
  amr: 'Authentication methods of the session',
  ext_id: 'An external session identifier (e.g. a federated session)',
  principal: 'The kind of entity whose risk changed (USER, DEVICE, SESSION, …)',
  risk_reason: 'What made the risk change',
  reason: 'Why the account was disabled (hijacking, bulk-account), or why the stream status changed',
  'new-value': 'The new value of the identifier',
  state: "The receiver's opaque value from its verification request",
  status: 'The new status of the stream: enabled, paused or disabled',
};

const SPEC_OF = (uri: string) =>
  uri.startsWith(CAEP)
    ? 'OpenID CAEP 1.0'
    : uri.startsWith(RISC)
      ? 'OpenID RISC 1.0'
      : uri.startsWith(SSF)
        ? 'OpenID SSF 1.0'
        : undefined;

/**
 * The `events` claim of a SET explained: each event type, what it says, each field with its meaning,
 * and whether the body keeps to its type's schema.
 */
export function explainEvents(events: unknown) {
  if (!events || typeof events !== 'object' || Array.isArray(events)) return [];
  return Object.entries(events as Record<string, unknown>).map(([type, body]) => {
    const spec = SPEC_OF(type);
    const known = Object.hasOwn(EVENT_MEANINGS, type);
    const fields =
      body && typeof body === 'object' && !Array.isArray(body)
        ? Object.entries(body as Record<string, unknown>).map(([name, value]) => ({
            name,
            value,
            meaning: Object.hasOwn(FIELD_MEANINGS, name)
              ? FIELD_MEANINGS[name]
              : 'A field this event type does not define',
          }))
        : [];
    const fault = EVENT_TYPES.has(type) ? eventBodyFault(type, body) : undefined;
    return {
      type,
      name: type.split('/').pop(),
      ...(known ? { meaning: EVENT_MEANINGS[type] } : { meaning: 'An event type this origin does not know' }),
      ...(spec ? { reference: spec } : {}),
      fields,
      ...(fault ? { fault } : {}),
    };
  });
}
