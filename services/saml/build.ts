import { randomBytes } from '../crypto/random.ts';
import { NS, SAML_VERSION } from './constants.ts';
import { escapeXml as e } from './xml.ts';

/** SAML core §1.3.4: an ID is an xs:ID (an NCName), unique, with at least 128 random bits. */
export const newSamlId = (): string => `_${randomBytes(20).toString('hex')}`;

/** SAML core §1.3.3: UTC, no fraction. */
const samlTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const NSDECL = `xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}"`;
const optional = (name: string, value: string | undefined) => (value === undefined ? '' : ` ${name}="${e(value)}"`);

export interface StatusFields {
  code: string;
  /** A second-level code (e.g. PartialLogout, NoPassive under Requester or Responder). */
  subCode?: string;
  message?: string;
}

const statusXml = (status: StatusFields) =>
  `<samlp:Status><samlp:StatusCode Value="${e(status.code)}">${
    status.subCode ? `<samlp:StatusCode Value="${e(status.subCode)}"/>` : ''
  }</samlp:StatusCode>${status.message ? `<samlp:StatusMessage>${e(status.message)}</samlp:StatusMessage>` : ''}</samlp:Status>`;

export interface AssertionFields {
  id: string;
  issueInstant: number;
  issuer: string;
  nameId: { value: string; format: string; spNameQualifier?: string };
  recipient: string;
  inResponseTo?: string;
  notOnOrAfter: number;
  notBefore: number;
  audience: string;
  authnInstant: number;
  sessionIndex: string;
  authnContextClass: string;
  attributes: ReadonlyArray<{ name: string; friendlyName?: string; values: string[] }>;
}

/** A bearer Assertion for the Web SSO profile (SAML profiles §4.1.4.2). */
export function buildAssertion(a: AssertionFields): string {
  const attributes = a.attributes.length
    ? `<saml:AttributeStatement>${a.attributes
        .map(
          (attribute) =>
            `<saml:Attribute Name="${e(attribute.name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri"${optional(
              'FriendlyName',
              attribute.friendlyName,
            )}>${attribute.values.map((v) => `<saml:AttributeValue>${e(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`,
        )
        .join('')}</saml:AttributeStatement>`
    : '';
  return (
    `<saml:Assertion xmlns:saml="${NS.assertion}" ID="${a.id}" Version="${SAML_VERSION}" IssueInstant="${samlTime(a.issueInstant)}">` +
    `<saml:Issuer>${e(a.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${e(a.nameId.format)}"${optional('SPNameQualifier', a.nameId.spNameQualifier)}>${e(
      a.nameId.value,
    )}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${optional(
      'InResponseTo',
      a.inResponseTo,
    )} NotOnOrAfter="${samlTime(a.notOnOrAfter)}" Recipient="${e(a.recipient)}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${samlTime(a.notBefore)}" NotOnOrAfter="${samlTime(a.notOnOrAfter)}"><saml:AudienceRestriction><saml:Audience>${e(
      a.audience,
    )}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${samlTime(a.authnInstant)}" SessionIndex="${e(a.sessionIndex)}"><saml:AuthnContext><saml:AuthnContextClassRef>${e(
      a.authnContextClass,
    )}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    attributes +
    `</saml:Assertion>`
  );
}

export interface ResponseFields {
  id: string;
  issueInstant: number;
  issuer: string;
  destination: string;
  inResponseTo?: string;
  status: StatusFields;
  /** The Assertion or EncryptedAssertion, already built (and signed or encrypted). */
  assertionXml?: string;
}

/** A `samlp:Response` (SAML core §3.3.3). */
export const buildResponse = (r: ResponseFields): string =>
  `<samlp:Response ${NSDECL} ID="${r.id}" Version="${SAML_VERSION}" IssueInstant="${samlTime(r.issueInstant)}" Destination="${e(
    r.destination,
  )}"${optional('InResponseTo', r.inResponseTo)}><saml:Issuer>${e(r.issuer)}</saml:Issuer>${statusXml(r.status)}${
    r.assertionXml ?? ''
  }</samlp:Response>`;

export interface AuthnRequestFields {
  id: string;
  issueInstant: number;
  issuer: string;
  destination: string;
  acsUrl: string;
  forceAuthn?: boolean;
  isPassive?: boolean;
  nameIdFormat?: string;
  authnContextClass?: string;
}

/** A `samlp:AuthnRequest` (SAML core §3.4.1) asking for the response over HTTP-POST. */
export const buildAuthnRequest = (r: AuthnRequestFields): string =>
  `<samlp:AuthnRequest ${NSDECL} ID="${r.id}" Version="${SAML_VERSION}" IssueInstant="${samlTime(r.issueInstant)}" Destination="${e(
    r.destination,
  )}" AssertionConsumerServiceURL="${e(r.acsUrl)}" ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"${
    r.forceAuthn ? ' ForceAuthn="true"' : ''
  }${r.isPassive ? ' IsPassive="true"' : ''}><saml:Issuer>${e(r.issuer)}</saml:Issuer>${
    r.nameIdFormat ? `<samlp:NameIDPolicy Format="${e(r.nameIdFormat)}" AllowCreate="true"/>` : ''
  }${
    r.authnContextClass
      ? `<samlp:RequestedAuthnContext Comparison="exact"><saml:AuthnContextClassRef>${e(
          r.authnContextClass,
        )}</saml:AuthnContextClassRef></samlp:RequestedAuthnContext>`
      : ''
  }</samlp:AuthnRequest>`;

export interface LogoutRequestFields {
  id: string;
  issueInstant: number;
  issuer: string;
  destination: string;
  nameId: { value: string; format: string; spNameQualifier?: string };
  sessionIndex?: string;
}

/** A `samlp:LogoutRequest` (SAML core §3.7.1). */
export const buildLogoutRequest = (r: LogoutRequestFields): string =>
  `<samlp:LogoutRequest ${NSDECL} ID="${r.id}" Version="${SAML_VERSION}" IssueInstant="${samlTime(r.issueInstant)}" Destination="${e(
    r.destination,
  )}"><saml:Issuer>${e(r.issuer)}</saml:Issuer><saml:NameID Format="${e(r.nameId.format)}"${optional(
    'SPNameQualifier',
    r.nameId.spNameQualifier,
  )}>${e(r.nameId.value)}</saml:NameID>${
    r.sessionIndex ? `<samlp:SessionIndex>${e(r.sessionIndex)}</samlp:SessionIndex>` : ''
  }</samlp:LogoutRequest>`;

export interface LogoutResponseFields {
  id: string;
  issueInstant: number;
  issuer: string;
  destination: string;
  inResponseTo: string;
  status: StatusFields;
}

/** A `samlp:LogoutResponse` (SAML core §3.7.2). */
export const buildLogoutResponse = (r: LogoutResponseFields): string =>
  `<samlp:LogoutResponse ${NSDECL} ID="${r.id}" Version="${SAML_VERSION}" IssueInstant="${samlTime(r.issueInstant)}" Destination="${e(
    r.destination,
  )}" InResponseTo="${e(r.inResponseTo)}"><saml:Issuer>${e(r.issuer)}</saml:Issuer>${statusXml(r.status)}</samlp:LogoutResponse>`;
