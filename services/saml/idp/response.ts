import { pairwiseSubject } from '../../oauth/clients/sector.ts';
import type { DemoUser } from '../../oauth/demo-users.ts';
import { buildAssertion, buildResponse, newSamlId, type StatusFields } from '../build.ts';
import { ASSERTION_LIFETIME_MS, NAMEID, STATUS } from '../constants.ts';
import { encryptAssertion } from '../encryption.ts';
import type { ServiceProvider } from '../service-providers.ts';
import { signElement, type PemKeyPair } from '../signature.ts';

/** What the IdP signs with and says it is. */
export interface IdpIdentity {
  entityId: string;
  signing: PemKeyPair;
  /** The salt of persistent NameIDs (one value per user and SP, like pairwise subjects). */
  persistentSalt: Uint8Array;
}

/** SAML core §8.3: the NameID of `user` for `sp` in `format`. */
export function nameIdFor(user: DemoUser, sp: ServiceProvider, format: string, salt: Uint8Array): string {
  if (format === NAMEID.email) return user.email;
  if (format === NAMEID.persistent) return pairwiseSubject(sp.entityId, user.id, salt);
  return newSamlId();
}

/** The demo user's attributes (eduPerson/X.500 names by OID, SAML core §2.7.3). */
function attributesOf(user: DemoUser): Array<{ name: string; friendlyName: string; values: string[] }> {
  const claim = (name: string) => (typeof user.claims[name] === 'string' ? [user.claims[name] as string] : []);
  return [
    { name: 'urn:oid:0.9.2342.19200300.100.1.1', friendlyName: 'uid', values: [user.id] },
    { name: 'urn:oid:0.9.2342.19200300.100.1.3', friendlyName: 'mail', values: [user.email] },
    { name: 'urn:oid:2.5.4.42', friendlyName: 'givenName', values: claim('given_name') },
    { name: 'urn:oid:2.5.4.4', friendlyName: 'sn', values: claim('family_name') },
    { name: 'urn:oid:2.16.840.1.113730.3.1.241', friendlyName: 'displayName', values: [user.name] },
    { name: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.7', friendlyName: 'eduPersonEntitlement', values: user.roles },
  ].filter((a) => a.values.length);
}

export interface SsoAnswer {
  sp: ServiceProvider;
  acsUrl: string;
  inResponseTo?: string;
  user: DemoUser;
  nameId: string;
  nameIdFormat: string;
  sessionIndex: string;
  authnInstant: number;
  authnContext: string;
}

/**
 * A successful Response (SAML profiles §4.1.4.2): a bearer assertion with audience, recipient and
 * times, signed where the SP chose (the assertion, the response or both: RSA-SHA256, exclusive
 * canonicalization) and encrypted (AES-256-GCM, RSA-OAEP) when the SP has an encryption certificate.
 */
export async function successResponse(idp: IdpIdentity, answer: SsoAnswer, nowMs: number): Promise<string> {
  const { sp } = answer;
  const assertionId = newSamlId();
  let assertion = buildAssertion({
    id: assertionId,
    issueInstant: nowMs,
    issuer: idp.entityId,
    nameId: {
      value: answer.nameId,
      format: answer.nameIdFormat,
      ...(answer.nameIdFormat === NAMEID.email ? {} : { spNameQualifier: sp.entityId }),
    },
    recipient: answer.acsUrl,
    ...(answer.inResponseTo ? { inResponseTo: answer.inResponseTo } : {}),
    notBefore: nowMs,
    notOnOrAfter: nowMs + ASSERTION_LIFETIME_MS,
    audience: sp.entityId,
    authnInstant: answer.authnInstant,
    sessionIndex: answer.sessionIndex,
    authnContextClass: answer.authnContext,
    attributes: attributesOf(answer.user),
  });
  if (sp.sign !== 'response') assertion = signElement(assertion, assertionId, idp.signing);
  if (sp.encryption) assertion = await encryptAssertion(assertion, sp.encryption.toString());
  const responseId = newSamlId();
  const response = buildResponse({
    id: responseId,
    issueInstant: nowMs,
    issuer: idp.entityId,
    destination: answer.acsUrl,
    ...(answer.inResponseTo ? { inResponseTo: answer.inResponseTo } : {}),
    status: { code: STATUS.success },
    assertionXml: assertion,
  });
  return sp.sign === 'assertion' ? response : signElement(response, responseId, idp.signing);
}

/** A signed Response carrying only a status (a refusal sent to a trusted ACS URL). */
export function statusResponse(
  idp: IdpIdentity,
  to: { acsUrl: string; inResponseTo?: string },
  status: StatusFields,
  nowMs: number,
): string {
  const id = newSamlId();
  const xml = buildResponse({
    id,
    issueInstant: nowMs,
    issuer: idp.entityId,
    destination: to.acsUrl,
    ...(to.inResponseTo ? { inResponseTo: to.inResponseTo } : {}),
    status,
  });
  return signElement(xml, id, idp.signing);
}
