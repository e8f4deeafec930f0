import { CheckFailed, runChecks, type Result, CheckTrail } from '../result.ts';
import { issueJwtVc, verifyJwtVc } from '../w3c/jwt-vc.ts';
import type { SigningKey } from '../sd-jwt/types.ts';
import { bitAt, decodeBitstring } from './bits.ts';
import type { StatusListCheck } from './token.ts';

/**
 * W3C Bitstring Status List v1.0: the `credentialStatus` entries a credential carries
 * (`BitstringStatusListEntry`, §2.1) and the status list credential they point at
 * (`BitstringStatusListCredential`, §2.2), here secured as a JWT VC.
 */

export type StatusPurpose = 'revocation' | 'suspension';
const STATUS_PURPOSES: readonly StatusPurpose[] = ['revocation', 'suspension'];
const W3C_V2 = 'https://www.w3.org/ns/credentials/v2';

export interface BitstringReference {
  purpose: string;
  /** `statusListCredential`: the list credential's URL. */
  url: string;
  idx: number;
}

/** One entry per purpose, each pointing at `listUrl(purpose)` at the same index. */
export const bitstringEntries = (listUrl: (purpose: StatusPurpose) => string, idx: number) =>
  STATUS_PURPOSES.map((purpose) => ({
    id: `${listUrl(purpose)}#${idx}`,
    type: 'BitstringStatusListEntry',
    statusPurpose: purpose,
    statusListIndex: String(idx),
    statusListCredential: listUrl(purpose),
  }));

/** The status entries of a credential (object or array), those well formed; others are named as faults. */
export function bitstringReferences(credential: Record<string, unknown>): BitstringReference[] {
  const raw = credential.credentialStatus;
  const entries = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return entries
    .filter((e): e is Record<string, unknown> => !!e && typeof e === 'object' && !Array.isArray(e))
    .filter((e) => e.type === 'BitstringStatusListEntry')
    .map((e) => ({
      purpose: String(e.statusPurpose),
      url: String(e.statusListCredential),
      idx:
        typeof e.statusListIndex === 'string' && /^\d{1,9}$/.test(e.statusListIndex) ? Number(e.statusListIndex) : -1,
    }));
}

export interface BitstringListInput {
  url: string;
  purpose: StatusPurpose;
  encodedList: string;
  issuerDid: string;
  key: SigningKey;
  nowS: number;
  /** Seconds the list may be cached; carried as `ttl` in milliseconds (§2.2). */
  ttlS: number;
  validForS: number;
}

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/** The status list credential of one purpose, as a JWT VC signed by the issuer's DID key. */
export function issueBitstringListCredential(input: BitstringListInput): Promise<string> {
  return issueJwtVc({
    format: 'jwt_vc_json',
    credential: {
      '@context': [W3C_V2],
      id: input.url,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: input.issuerDid,
      validFrom: isoSeconds(input.nowS),
      validUntil: isoSeconds(input.nowS + input.validForS),
      credentialSubject: {
        id: `${input.url}#list`,
        type: 'BitstringStatusList',
        statusPurpose: input.purpose,
        encodedList: input.encodedList,
        ttl: input.ttlS * 1000,
      },
    },
    issuer: input.key,
    now: input.nowS,
  });
}

export interface BitstringListContents {
  issuer: string;
  purpose: string;
  id: string;
  bytes: Uint8Array;
  validUntil?: string;
  /** Milliseconds, when given. */
  ttl?: number;
}

/** The list credential's subject, read: purpose and the decoded bitstring. */
function listSubject(
  vc: Record<string, unknown>,
  trail: CheckTrail,
): Omit<BitstringListContents, 'issuer' | 'id' | 'validUntil'> {
  const subject = vc.credentialSubject as Record<string, unknown> | undefined;
  trail.ensure(
    subject && typeof subject === 'object' && subject.type === 'BitstringStatusList',
    'status_list_format',
    'credentialSubject is not a BitstringStatusList',
  );
  trail.ensure(typeof subject.encodedList === 'string', 'status_list_format', 'encodedList is missing');
  let bytes: Uint8Array;
  try {
    bytes = decodeBitstring(subject.encodedList);
  } catch (error) {
    throw new CheckFailed('status_list_format', (error as Error).message.slice(0, 120));
  }
  return {
    purpose: String(subject.statusPurpose),
    bytes,
    ttl: typeof subject.ttl === 'number' ? subject.ttl : undefined,
  };
}

/** A list credential's claims, unverified (the looking glass). */
export function readBitstringListCredential(
  vc: Record<string, unknown>,
  trail: CheckTrail = new CheckTrail(),
): BitstringListContents {
  trail.ensure(
    Array.isArray(vc.type) && vc.type.includes('BitstringStatusListCredential'),
    'status_list_typ',
    'the credential is not a BitstringStatusListCredential',
  );
  const issuer = typeof vc.issuer === 'string' ? vc.issuer : String((vc.issuer as { id?: unknown })?.id);
  return {
    issuer,
    id: String(vc.id),
    validUntil: typeof vc.validUntil === 'string' ? vc.validUntil : undefined,
    ...listSubject(vc, trail),
  };
}

/** §3.2 validation: signature, type, the list is the one referenced, its purpose, its validity. */
export function verifyBitstringListCredential(
  jwt: string,
  expect: { reference: BitstringReference; nowS: number; trustedIssuers: readonly string[]; trail?: CheckTrail },
): Promise<Result<{ contents: BitstringListContents }, StatusListCheck>> {
  return runChecks(expect.trail, async (trail: CheckTrail) => {
    const verified = await verifyJwtVc(jwt, { now: expect.nowS, format: 'jwt_vc_json', trail });
    if (!verified.valid)
      throw new CheckFailed(
        verified.check === 'validity' ? 'status_list_expiry' : 'status_list_signature',
        verified.reason,
      );
    const contents = readBitstringListCredential(verified.credential as Record<string, unknown>, trail);
    trail.ensure(
      expect.trustedIssuers.includes(contents.issuer),
      'status_list_signature',
      'the list is not signed by an issuer this verifier trusts',
    );
    trail.held('status_list_signature');
    trail.ensure(
      contents.id === expect.reference.url,
      'status_list_sub',
      'the list credential id is not the referenced URL',
    );
    trail.ensure(
      contents.purpose === expect.reference.purpose,
      'status_list_sub',
      `the list's statusPurpose is ${contents.purpose}, not ${expect.reference.purpose}`,
    );
    return { contents };
  });
}

/** The bit of a verified list at the reference's index; undefined when out of range. */
export const bitstringStatus = (contents: BitstringListContents, idx: number) => bitAt(contents.bytes, idx);
