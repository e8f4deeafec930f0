import { buildAssertion, buildResponse, newSamlId } from '../build.ts';
import { ASSERTION_LIFETIME_MS, NAMEID, STATUS } from '../constants.ts';
import { signElement, type PemKeyPair } from '../signature.ts';

/** What the lab signs as: our IdP (the SP under test trusts its metadata). */
export interface LabIdp {
  entityId: string;
  signing: PemKeyPair;
}

/** The SP under test: its entity ID (the audience) and ACS URL (the recipient). */
export interface LabTarget {
  entityId: string;
  acsUrl: string;
  /** Whether its metadata asks for signed assertions (WantAssertionsSigned). */
  wantAssertionsSigned: boolean;
}

export interface MintOptions {
  nameId?: string;
  audience?: string;
  recipient?: string;
  /** Milliseconds added to now for the assertion's times (negative: issued in the past). */
  shiftMs?: number;
  signAssertion?: boolean;
  signResponse?: boolean;
  algorithms?: { signature: string; digest: string; hmacKey?: string };
}

export const LEGIT_NAME = 'lab-user@example.com';
export const VICTIM_NAME = 'admin@example.com';

/** A Response from the lab's IdP for the target, each time with fresh IDs (so replay detection never masks an attack). */
export function mintResponse(idp: LabIdp, target: LabTarget, nowMs: number, options: MintOptions = {}) {
  const at = nowMs + (options.shiftMs ?? 0);
  const assertionId = newSamlId();
  const responseId = newSamlId();
  let assertion = buildAssertion({
    id: assertionId,
    issueInstant: at,
    issuer: idp.entityId,
    nameId: { value: options.nameId ?? LEGIT_NAME, format: NAMEID.email },
    recipient: options.recipient ?? target.acsUrl,
    notBefore: at,
    notOnOrAfter: at + ASSERTION_LIFETIME_MS,
    audience: options.audience ?? target.entityId,
    authnInstant: at,
    sessionIndex: newSamlId(),
    authnContextClass: 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport',
    attributes: [
      { name: 'urn:oid:0.9.2342.19200300.100.1.3', friendlyName: 'mail', values: [options.nameId ?? LEGIT_NAME] },
    ],
  });
  if (options.signAssertion ?? true)
    assertion = signElement(assertion, assertionId, idp.signing, true, options.algorithms);
  let xml = buildResponse({
    id: responseId,
    issueInstant: at,
    issuer: idp.entityId,
    destination: target.acsUrl,
    status: { code: STATUS.success },
    assertionXml: assertion,
  });
  if (options.signResponse) xml = signElement(xml, responseId, idp.signing, true, options.algorithms);
  return { xml, assertionId, responseId };
}
