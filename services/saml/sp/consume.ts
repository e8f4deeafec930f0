import type { X509Certificate } from 'node:crypto';
import { CLOCK_SKEW_MS, NS, STATUS } from '../constants.ts';
import { decryptAssertion } from '../encryption.ts';
import { verifyElementSignature } from '../signature.ts';
import {
  attr,
  childElements,
  elementsNamed,
  hasComment,
  onlyChild,
  parseXml,
  serializeXml,
  textOf,
  XmlRefused,
} from '../xml.ts';

/** The IdP an SP trusts, as its metadata says. */
export interface TrustedIdp {
  entityId: string;
  signing: readonly X509Certificate[];
}

export interface ConsumeDeps {
  /** This SP's entity ID (the audience) and ACS URL (the recipient and Destination). */
  entityId: string;
  acsUrl: string;
  idp: TrustedIdp;
  /** Our decryption keys (PEM). */
  decryptionKeys: readonly string[];
  nowMs: number;
  /** The AuthnRequest this response answers, when it names one: was it sent by us, to this IdP, and still open? */
  requestOpen(requestId: string): Promise<boolean>;
  /** Records an assertion ID; false when it was consumed before (SAML profiles §4.1.4.5). */
  useOnce(purpose: string, value: string): Promise<boolean>;
}

export interface ConsumedLogin {
  ok: true;
  inResponseTo?: string;
  assertionId: string;
  nameId: string;
  nameIdFormat: string;
  sessionIndex?: string;
  attributes: Record<string, string[]>;
  checks: string[];
}
export interface RefusedLogin {
  ok: false;
  check: string;
  reason: string;
  inResponseTo?: string;
  checks: string[];
}

class Refusal extends Error {
  constructor(
    readonly check: string,
    message: string,
  ) {
    super(message);
  }
}

const refuseIf = (condition: boolean, check: string, reason: string) => {
  if (condition) throw new Refusal(check, reason);
};

/**
 * The ACS's checks on a Response (SAML profiles §4.1.4.3, core §2.5, §3.2.2), each named and in order.
 * The assertion consumed is always the one parsed again from what a valid signature covers, never a
 * node of the document received, so a wrapped copy is never read.
 */
export async function consumeResponse(xml: string, deps: ConsumeDeps): Promise<ConsumedLogin | RefusedLogin> {
  const checks: string[] = [];
  let inResponseTo: string | undefined;
  try {
    let doc: Document;
    try {
      doc = parseXml(xml);
    } catch (error) {
      if (error instanceof XmlRefused) throw new Refusal(error.check, error.message);
      throw error;
    }
    // Canonicalization drops comments from what is signed, so a comment inside a signed NameID changes what
    // a careless reader sees and not the signature (comment injection): IdPs send none, and none is taken.
    refuseIf(
      hasComment(doc),
      'xml_comment',
      'The Response carries an XML comment; signed content with comments is refused',
    );
    const root = doc.documentElement;
    checks.push('xml_safe');
    refuseIf(
      root.namespaceURI !== NS.protocol || root.localName !== 'Response' || !attr(root, 'ID'),
      'response_shape',
      'The message is not a samlp:Response with an ID',
    );
    inResponseTo = attr(root, 'InResponseTo');
    const destination = attr(root, 'Destination');
    refuseIf(
      destination !== undefined && destination !== deps.acsUrl,
      'response_destination',
      `The Destination is not this ACS (${deps.acsUrl})`,
    );
    checks.push('response_destination');
    const responseIssuer = textOf(onlyChild(root, NS.assertion, 'Issuer'));
    refuseIf(
      responseIssuer !== undefined && responseIssuer !== deps.idp.entityId,
      'issuer',
      `The Response's Issuer is not ${deps.idp.entityId}`,
    );
    const status = attr(onlyChild(onlyChild(root, NS.protocol, 'Status') ?? root, NS.protocol, 'StatusCode'), 'Value');
    refuseIf(status !== STATUS.success, 'status', `The IdP answered ${status ?? 'no status'}`);
    checks.push('status');
    // The Response's own signature, when present, must hold; the assertion is then read from what it covers.
    let container: Element = root;
    if (childElements(root, NS.dsig, 'Signature').length) {
      const verdict = verifyElementSignature(xml, root, deps.idp.signing);
      if (!verdict.ok) throw new Refusal(verdict.check, verdict.reason);
      container = verdict.signed;
      checks.push('response_signature');
    }
    refuseIf(!deps.idp.signing.length, 'idp_certificate', 'The IdP metadata has no signing certificate');
    const plain = childElements(container, NS.assertion, 'Assertion');
    const encrypted = childElements(container, NS.assertion, 'EncryptedAssertion');
    refuseIf(plain.length + encrypted.length !== 1, 'assertion_count', 'The Response must carry exactly one assertion');
    let assertion: Element;
    let assertionXml: string;
    if (encrypted.length) {
      try {
        assertion = await decryptAssertion(encrypted[0], deps.decryptionKeys);
      } catch (error) {
        throw new Refusal(
          'decryption',
          `The EncryptedAssertion does not decrypt with this SP's key: ${(error as Error).message}`,
        );
      }
      assertionXml = serializeXml(assertion);
      checks.push('decryption');
    } else {
      assertion = plain[0];
      assertionXml = container === root ? xml : serializeXml(container);
    }
    // WantAssertionsSigned (our metadata): the assertion carries its own valid signature.
    const verdict = verifyElementSignature(assertionXml, assertion, deps.idp.signing);
    if (!verdict.ok) throw new Refusal(verdict.check, `Assertion: ${verdict.reason}`);
    assertion = verdict.signed;
    checks.push('assertion_signature');
    // A second assertion anywhere (Extensions, a signature's Object, nested) is how wrapping hides a copy.
    const anywhere =
      elementsNamed(doc, NS.assertion, 'Assertion').length +
      elementsNamed(doc, NS.assertion, 'EncryptedAssertion').length;
    refuseIf(anywhere !== 1, 'assertion_count', 'The Response carries more than one assertion, one of them hidden');
    return await checkAssertion(assertion, inResponseTo, deps, checks);
  } catch (error) {
    if (error instanceof Refusal)
      return {
        ok: false,
        check: error.check,
        reason: error.message,
        ...(inResponseTo ? { inResponseTo } : {}),
        checks,
      };
    throw error;
  }
}

/** The signed assertion's own rules: issuer, subject confirmation, conditions, InResponseTo, replay. */
async function checkAssertion(
  assertion: Element,
  inResponseTo: string | undefined,
  deps: ConsumeDeps,
  checks: string[],
): Promise<ConsumedLogin> {
  const now = deps.nowMs;
  const time = (el: Element | undefined, name: string) => {
    const value = attr(el, name);
    return value === undefined ? undefined : Date.parse(value);
  };
  refuseIf(
    textOf(onlyChild(assertion, NS.assertion, 'Issuer')) !== deps.idp.entityId,
    'issuer',
    `The assertion's Issuer is not ${deps.idp.entityId}`,
  );
  checks.push('issuer');
  const subject = onlyChild(assertion, NS.assertion, 'Subject');
  const nameIdElement = subject ? onlyChild(subject, NS.assertion, 'NameID') : undefined;
  const nameId = textOf(nameIdElement);
  refuseIf(!nameId, 'subject', 'The assertion has no NameID');
  const bearer = (subject ? childElements(subject, NS.assertion, 'SubjectConfirmation') : []).filter(
    (sc) => attr(sc, 'Method') === 'urn:oasis:names:tc:SAML:2.0:cm:bearer',
  );
  const data = bearer.length === 1 ? onlyChild(bearer[0], NS.assertion, 'SubjectConfirmationData') : undefined;
  refuseIf(
    !data,
    'subject_confirmation',
    'The assertion needs one bearer SubjectConfirmation with its data (profiles §4.1.4.2)',
  );
  refuseIf(
    attr(data, 'Recipient') !== deps.acsUrl,
    'recipient',
    `The SubjectConfirmationData's Recipient is not this ACS (${deps.acsUrl})`,
  );
  checks.push('recipient');
  const confirmUntil = time(data, 'NotOnOrAfter');
  refuseIf(
    confirmUntil === undefined || !(now < confirmUntil + CLOCK_SKEW_MS),
    'expired',
    'The subject confirmation has expired (NotOnOrAfter, 15 s skew)',
  );
  const conditions = onlyChild(assertion, NS.assertion, 'Conditions');
  const notBefore = time(conditions, 'NotBefore');
  const notOnOrAfter = time(conditions, 'NotOnOrAfter');
  refuseIf(
    notBefore !== undefined && !(notBefore <= now + CLOCK_SKEW_MS),
    'not_yet_valid',
    'The assertion is not valid yet (NotBefore, 15 s skew)',
  );
  refuseIf(
    notOnOrAfter !== undefined && !(now < notOnOrAfter + CLOCK_SKEW_MS),
    'expired',
    'The assertion has expired (NotOnOrAfter, 15 s skew)',
  );
  checks.push('time_conditions');
  const audiences = (conditions ? childElements(conditions, NS.assertion, 'AudienceRestriction') : []).map((r) =>
    childElements(r, NS.assertion, 'Audience').map((a) => textOf(a)),
  );
  // Core §2.5.1.4: every AudienceRestriction must name us; profiles §4.1.4.2 requires one.
  refuseIf(
    !audiences.length || audiences.some((list) => !list.includes(deps.entityId)),
    'audience',
    `The assertion's audience is not this SP (${deps.entityId})`,
  );
  checks.push('audience');
  const confirmedFor = attr(data, 'InResponseTo');
  refuseIf(
    confirmedFor !== inResponseTo,
    'in_response_to',
    'The Response and its subject confirmation answer different requests',
  );
  if (inResponseTo !== undefined)
    refuseIf(
      !(await deps.requestOpen(inResponseTo)),
      'in_response_to',
      `InResponseTo ${inResponseTo} names no open request of this SP to this IdP`,
    );
  checks.push('in_response_to');
  const assertionId = attr(assertion, 'ID')!;
  refuseIf(
    !(await deps.useOnce('saml-assertion', `${deps.entityId} ${assertionId}`)),
    'replay',
    `The assertion ${assertionId} was already consumed`,
  );
  checks.push('replay');
  const attributes = Object.create(null) as Record<string, string[]>;
  for (const statement of childElements(assertion, NS.assertion, 'AttributeStatement'))
    for (const attribute of childElements(statement, NS.assertion, 'Attribute')) {
      const name = attr(attribute, 'FriendlyName') ?? attr(attribute, 'Name') ?? '';
      attributes[name] = childElements(attribute, NS.assertion, 'AttributeValue').map((v) => textOf(v) ?? '');
    }
  const authn = onlyChild(assertion, NS.assertion, 'AuthnStatement');
  return {
    ok: true,
    ...(inResponseTo ? { inResponseTo } : {}),
    assertionId,
    nameId: nameId!,
    nameIdFormat: attr(nameIdElement, 'Format') ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
    ...(attr(authn, 'SessionIndex') ? { sessionIndex: attr(authn, 'SessionIndex') } : {}),
    attributes,
    checks,
  };
}
