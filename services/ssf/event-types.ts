/**
 * The event types this transmitter knows, each with the fields its specification gives it: CAEP 1.0
 * §3, RISC 1.0 §2, and SSF 1.0's own verification and stream-updated (§8.1.4, §8.1.5). A field rule
 * says whether the field is required and what it may hold; anything else in an event body is refused.
 */

export const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
export const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
export const SSF = 'https://schemas.openid.net/secevent/ssf/event-type/';

type FieldRule =
  | { kind: 'string'; values?: readonly string[] }
  | { kind: 'number' }
  | { kind: 'object' }
  | { kind: 'localized' }
  | { kind: 'strings' };

interface EventTypeRule {
  reference: string;
  required: Readonly<Record<string, FieldRule>>;
  optional: Readonly<Record<string, FieldRule>>;
}

const CREDENTIAL_TYPES = [
  'password',
  'pin',
  'x509',
  'fido2-platform',
  'fido2-roaming',
  'fido-u2f',
  'verifiable-credential',
  'phone-voice',
  'phone-sms',
  'app',
] as const;
const RISK_LEVELS = ['LOW', 'MEDIUM', 'HIGH'] as const;
const COMPLIANCE = ['compliant', 'not-compliant'] as const;

/** CAEP 1.0 §2: the claims any CAEP event may carry. */
const CAEP_COMMON: Record<string, FieldRule> = {
  event_timestamp: { kind: 'number' },
  initiating_entity: { kind: 'string', values: ['admin', 'user', 'policy', 'system'] },
  reason_admin: { kind: 'localized' },
  reason_user: { kind: 'localized' },
};
const caep = (
  name: string,
  section: string,
  required: Record<string, FieldRule> = {},
  optional: Record<string, FieldRule> = {},
): [string, EventTypeRule] => [
  `${CAEP}${name}`,
  { reference: `OpenID CAEP 1.0 §${section}`, required, optional: { ...CAEP_COMMON, ...optional } },
];
const risc = (
  name: string,
  section: string,
  required: Record<string, FieldRule> = {},
  optional: Record<string, FieldRule> = {},
): [string, EventTypeRule] => [`${RISC}${name}`, { reference: `OpenID RISC 1.0 §${section}`, required, optional }];

export const EVENT_TYPES: ReadonlyMap<string, EventTypeRule> = new Map([
  caep('session-revoked', '3.1'),
  caep('token-claims-change', '3.2', { claims: { kind: 'object' } }),
  caep(
    'credential-change',
    '3.3',
    {
      credential_type: { kind: 'string', values: CREDENTIAL_TYPES },
      change_type: { kind: 'string', values: ['create', 'revoke', 'update', 'delete'] },
    },
    {
      friendly_name: { kind: 'string' },
      x509_issuer: { kind: 'string' },
      x509_serial: { kind: 'string' },
      fido2_aaguid: { kind: 'string' },
    },
  ),
  caep(
    'assurance-level-change',
    '3.4',
    { namespace: { kind: 'string' }, current_level: { kind: 'string' } },
    { previous_level: { kind: 'string' }, change_direction: { kind: 'string', values: ['increase', 'decrease'] } },
  ),
  caep('device-compliance-change', '3.5', {
    previous_status: { kind: 'string', values: COMPLIANCE },
    current_status: { kind: 'string', values: COMPLIANCE },
  }),
  caep(
    'session-established',
    '3.6',
    {},
    {
      ips: { kind: 'strings' },
      fp_ua: { kind: 'string' },
      acr: { kind: 'string' },
      amr: { kind: 'strings' },
      ext_id: { kind: 'string' },
    },
  ),
  caep(
    'session-presented',
    '3.7',
    {},
    { ips: { kind: 'strings' }, fp_ua: { kind: 'string' }, ext_id: { kind: 'string' } },
  ),
  caep(
    'risk-level-change',
    '3.8',
    { principal: { kind: 'string' }, current_level: { kind: 'string', values: RISK_LEVELS } },
    { risk_reason: { kind: 'string' }, previous_level: { kind: 'string', values: RISK_LEVELS } },
  ),
  risc('account-credential-change-required', '2.1'),
  risc('account-purged', '2.2'),
  risc('account-disabled', '2.3', {}, { reason: { kind: 'string', values: ['hijacking', 'bulk-account'] } }),
  risc('account-enabled', '2.4'),
  risc('identifier-changed', '2.5', {}, { 'new-value': { kind: 'string' } }),
  risc('identifier-recycled', '2.6'),
  risc(
    'credential-compromise',
    '2.7',
    { credential_type: { kind: 'string', values: CREDENTIAL_TYPES } },
    { event_timestamp: { kind: 'number' }, reason_admin: { kind: 'localized' }, reason_user: { kind: 'localized' } },
  ),
  risc('opt-in', '2.8.1'),
  risc('opt-out-initiated', '2.8.2'),
  risc('opt-out-cancelled', '2.8.3'),
  risc('opt-out-effective', '2.8.4'),
  risc('recovery-activated', '2.9'),
  risc('recovery-information-changed', '2.10'),
]);

/** Stream control events: made by the transmitter only (SSF 1.0 §8.1.4, §8.1.5). */
export const VERIFICATION = `${SSF}verification`;
export const STREAM_UPDATED = `${SSF}stream-updated`;

/** What a stream may ask for and be delivered: every CAEP and RISC type above. */
export const EVENTS_SUPPORTED = [...EVENT_TYPES.keys()];

function fieldFault(name: string, value: unknown, rule: FieldRule): string | undefined {
  switch (rule.kind) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `${name} must be a number`;
    case 'object':
      return value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0
        ? undefined
        : `${name} must be a non-empty JSON object`;
    case 'strings':
      return Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? undefined
        : `${name} must be an array of strings`;
    case 'localized':
      return value &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        Object.keys(value).length > 0 &&
        Object.entries(value).every(
          ([tag, text]) => /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag) && typeof text === 'string',
        )
        ? undefined
        : `${name} must map BCP 47 language tags to strings`;
    case 'string':
      if (typeof value !== 'string') return `${name} must be a string`;
      return rule.values && !rule.values.includes(value)
        ? `${name} must be one of ${rule.values.join(', ')}`
        : undefined;
  }
}

/** The first way `body` breaks the schema of `eventType`, or undefined when it holds. */
export function eventBodyFault(eventType: string, body: unknown): string | undefined {
  const rule = EVENT_TYPES.get(eventType);
  if (!rule) return `${eventType} is not a CAEP or RISC event type this transmitter knows`;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'event must be a JSON object';
  const fields = body as Record<string, unknown>;
  for (const [name, field] of Object.entries(rule.required)) {
    if (!Object.hasOwn(fields, name)) return `${name} is required (${rule.reference})`;
    const fault = fieldFault(name, fields[name], field);
    if (fault) return `${fault} (${rule.reference})`;
  }
  for (const [name, value] of Object.entries(fields)) {
    if (Object.hasOwn(rule.required, name)) continue;
    const field = Object.hasOwn(rule.optional, name) ? rule.optional[name] : undefined;
    if (!field) return `${name} is not a field of this event type (${rule.reference})`;
    const fault = fieldFault(name, value, field);
    if (fault) return `${fault} (${rule.reference})`;
  }
  return undefined;
}
