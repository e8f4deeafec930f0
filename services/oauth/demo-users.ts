import type { DemoOverrides } from './demo-overrides.ts';

/** The published demo resource owners (decisions section 3). Passwords can be overridden by configuration. */

export interface DemoUser {
  id: string;
  name: string;
  email: string;
  /** Published on purpose (demo data); DEMO_PASSWORD_<USER> overrides it. */
  password: string;
  roles: string[];
  /** OpenID Connect claims, released by scope (OIDC Core §5.4). */
  claims: Record<string, unknown>;
}

export function demoUsers(overrides: Pick<DemoOverrides, 'passwords'>): DemoUser[] {
  const user = (
    id: string,
    given: string,
    family: string,
    roles: string[],
    extra: Record<string, unknown>,
  ): DemoUser => ({
    id,
    name: `${given} ${family}`,
    email: `${id}@example.com`,
    password: overrides.passwords.get(id) || `${id}-demo-password`,
    roles,
    claims: {
      sub: id,
      name: `${given} ${family}`,
      given_name: given,
      family_name: family,
      preferred_username: id,
      email: `${id}@example.com`,
      email_verified: true,
      locale: 'en-US',
      zoneinfo: 'Europe/Paris',
      updated_at: 1767225600,
      ...extra,
    },
  });
  return [
    user('alice', 'Alice', 'Anderson', ['user'], {
      birthdate: '1990-04-12',
      phone_number: '+1 555 0100',
      phone_number_verified: false,
      website: 'https://alice.example.com',
    }),
    user('bob', 'Bob', 'Brown', ['user'], {
      birthdate: '1985-11-03',
      phone_number: '+1 555 0101',
      phone_number_verified: true,
    }),
    user('admin', 'Ada', 'Admin', ['user', 'admin'], { birthdate: '1979-01-30' }),
  ];
}

/** Claims released for the granted scopes (OpenID Connect Core section 5.4). */
const SCOPE_CLAIMS: Record<string, string[]> = {
  openid: ['sub'],
  profile: [
    'name',
    'family_name',
    'given_name',
    'preferred_username',
    'website',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
};

export function claimsForScope(user: DemoUser, scope: string): Record<string, unknown> {
  const out: Record<string, unknown> = { sub: user.id };
  for (const s of scope.split(' '))
    for (const name of SCOPE_CLAIMS[s] ?? []) if (user.claims[name] !== undefined) out[name] = user.claims[name];
  return out;
}
