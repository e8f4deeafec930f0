import { AGENT_SCHEMA, ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from './schemas.ts';

/**
 * The demo data every tenant starts with (its first call adds it once): records of a provisioning
 * target, not sign-in accounts (the OpenID Provider's demo users are the only ones who sign in).
 * Groups name their members by the keys here; the service puts the new ids in their place.
 */
export interface SeedResource {
  key: string;
  type: 'User' | 'Group' | 'Agent';
  body: Record<string, unknown>;
  memberKeys?: string[];
}

const user = (key: string, given: string, family: string, extra: Record<string, unknown> = {}): SeedResource => ({
  key,
  type: 'User',
  body: {
    schemas: [USER_SCHEMA],
    userName: key,
    name: { givenName: given, familyName: family, formatted: `${given} ${family}` },
    displayName: `${given} ${family}`,
    emails: [{ value: `${key}@example.com`, type: 'work', primary: true }],
    active: true,
    ...extra,
  },
});

export const SEED: readonly SeedResource[] = [
  user('avery.lee', 'Avery', 'Lee', {
    schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
    title: 'Engineering Manager',
    userType: 'Employee',
    [ENTERPRISE_SCHEMA]: { employeeNumber: '1001', department: 'Engineering', organization: 'Portico Demo' },
  }),
  user('blake.chen', 'Blake', 'Chen', {
    userType: 'Employee',
    phoneNumbers: [{ value: 'tel:+1-555-0100', type: 'work' }],
  }),
  user('casey.okafor', 'Casey', 'Okafor', { userType: 'Contractor', active: false }),
  {
    key: 'engineering',
    type: 'Group',
    body: { schemas: [GROUP_SCHEMA], displayName: 'Engineering' },
    memberKeys: ['avery.lee', 'blake.chen'],
  },
  {
    key: 'everyone',
    type: 'Group',
    body: { schemas: [GROUP_SCHEMA], displayName: 'Everyone' },
    memberKeys: ['engineering', 'casey.okafor'],
  },
  {
    key: 'release-bot',
    type: 'Agent',
    body: {
      schemas: [AGENT_SCHEMA],
      name: 'release-bot',
      displayName: 'Release assistant',
      agentType: 'Assistant',
      description: 'Drafts release notes from merged changes.',
      active: true,
    },
    memberKeys: ['avery.lee'],
  },
];
