import canonicalize from 'canonicalize';

/**
 * Subject identifiers (RFC 9493 §3) and SSF's complex subjects (SSF 1.0 §3.3): which shapes are
 * accepted, their canonical key, and the matching rule of SSF 1.0 §8.1.3.1.
 */

type Subject = Record<string, unknown>;

/** RFC 9493 §3.2: each simple format and its members, all strings. */
const SIMPLE_FORMATS: Readonly<Record<string, readonly string[]>> = {
  account: ['uri'],
  email: ['email'],
  iss_sub: ['iss', 'sub'],
  opaque: ['id'],
  phone_number: ['phone_number'],
  did: ['url'],
  uri: ['uri'],
  // Not in RFC 9493's registry: a SCIM resource by its location (RFC 7644 §3.1), as docs/scim.md says.
  scim: ['uri'],
};

const isObject = (v: unknown): v is Subject => !!v && typeof v === 'object' && !Array.isArray(v);

/** The first fault of a simple subject identifier, or undefined. */
function simpleFault(subject: unknown, where: string): string | undefined {
  if (!isObject(subject)) return `${where} must be a JSON object`;
  const format = subject.format;
  if (typeof format !== 'string' || !Object.hasOwn(SIMPLE_FORMATS, format))
    return `${where}.format must be one of ${Object.keys(SIMPLE_FORMATS).join(', ')} (RFC 9493 §3.2)`;
  const members = SIMPLE_FORMATS[format];
  for (const name of members)
    if (
      typeof subject[name] !== 'string' ||
      (subject[name] as string).length === 0 ||
      (subject[name] as string).length > 512
    )
      return `${where}.${name} is required for format ${format} (a string of at most 512 characters)`;
  const extra = Object.keys(subject).find((k) => k !== 'format' && !members.includes(k));
  if (extra !== undefined) return `${where}.${extra} is not a member of format ${format}`;
  if (format === 'email' && !/^[^@\s]+@[^@\s]+$/.test(subject.email as string))
    return `${where}.email is not an address`;
  return undefined;
}

/** The first fault of a subject (simple, or complex with simple members), or undefined. */
export function subjectFault(subject: unknown): string | undefined {
  if (!isObject(subject)) return 'subject must be a JSON object';
  if (subject.format !== 'complex') return simpleFault(subject, 'subject');
  const members = Object.entries(subject).filter(([name]) => name !== 'format');
  if (members.length === 0) return 'a complex subject needs at least one member (SSF 1.0 §3.3)';
  if (members.length > 8) return 'a complex subject has at most 8 members here';
  for (const [name, value] of members) {
    if (!/^[a-z_]{1,32}$/.test(name)) return `subject.${name} is not a member name`;
    const fault = simpleFault(value, `subject.${name}`);
    if (fault) return fault;
  }
  return undefined;
}

/** One key per subject, whatever the order of its members (RFC 8785). */
export const subjectKey = (subject: Subject): string => canonicalize(subject) ?? '';

/**
 * SSF 1.0 §8.1.3.1: simple subjects match when identical; complex ones when every member either side
 * defines is identical on the other side or absent there. A simple subject matches a complex one that
 * holds it as its `user` member.
 */
export function subjectsMatch(added: Subject, event: Subject): boolean {
  const complex = (s: Subject): Subject => (s.format === 'complex' ? s : { format: 'complex', user: s });
  if (added.format !== 'complex' && event.format !== 'complex') return subjectKey(added) === subjectKey(event);
  const a = complex(added);
  const b = complex(event);
  const names = new Set([...Object.keys(a), ...Object.keys(b)].filter((n) => n !== 'format'));
  let shared = 0;
  for (const name of names) {
    const x = Object.hasOwn(a, name) ? (a[name] as Subject) : undefined;
    const y = Object.hasOwn(b, name) ? (b[name] as Subject) : undefined;
    if (x && y) {
      if (subjectKey(x) !== subjectKey(y)) return false;
      shared++;
    }
  }
  return shared > 0;
}
