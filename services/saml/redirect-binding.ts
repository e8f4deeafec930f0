import { createSign, createVerify, type KeyObject, type X509Certificate } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { ALG } from './constants.ts';
import { MAX_XML_BYTES, XmlRefused } from './xml.ts';

export type MessageKind = 'SAMLRequest' | 'SAMLResponse';

/** A message received over HTTP-Redirect (SAML bindings §3.4), with what its signature covers. */
export interface RedirectMessage {
  kind: MessageKind;
  xml: string;
  relayState?: string;
  /** Present when the query carries `Signature` (and `SigAlg`): the octets signed, as received. */
  signature?: { sigAlg: string; value: Buffer; signedOctets: string };
}

/** A redirect message that cannot be read; `check` names the rule. */
export class RedirectRefused extends Error {
  constructor(
    readonly check: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Inflates a DEFLATE payload with a hard output bound: a small body that expands past MAX_XML_BYTES
 * (a DEFLATE bomb) is refused when the bound is reached, never inflated whole.
 */
export function inflateBounded(compressed: Buffer): string {
  try {
    return inflateRawSync(compressed, { maxOutputLength: MAX_XML_BYTES }).toString('utf8');
  } catch (error) {
    if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new XmlRefused('xml_size', `The DEFLATE payload inflates past ${MAX_XML_BYTES} bytes (a DEFLATE bomb)`);
    throw new RedirectRefused('redirect_encoding', 'The message is not DEFLATE-compressed (SAML bindings §3.4.4.1)');
  }
}

/** The raw (still URL-encoded) value of each query parameter, as §3.4.4.1 requires for the signed octets. */
function rawParams(query: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of query.split('&')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = decodeURIComponent(part.slice(0, at));
    if (params.has(name)) throw new RedirectRefused('redirect_encoding', `The query repeats ${name}`);
    params.set(name, part.slice(at + 1));
  }
  return params;
}

const decode = (raw: string) => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new RedirectRefused('redirect_encoding', 'A query parameter is not URL-encoded');
  }
};

/** Reads an HTTP-Redirect message from the raw query string of the request. */
export function readRedirect(query: string): RedirectMessage {
  const params = rawParams(query);
  const kind: MessageKind | undefined = params.has('SAMLRequest')
    ? 'SAMLRequest'
    : params.has('SAMLResponse')
      ? 'SAMLResponse'
      : undefined;
  if (!kind) throw new RedirectRefused('redirect_encoding', 'The query has no SAMLRequest or SAMLResponse');
  const compressed = Buffer.from(decode(params.get(kind)!), 'base64');
  const xml = inflateBounded(compressed);
  const relay = params.get('RelayState');
  const message: RedirectMessage = { kind, xml, ...(relay !== undefined ? { relayState: decode(relay) } : {}) };
  const signature = params.get('Signature');
  const sigAlg = params.get('SigAlg');
  if (signature === undefined && sigAlg === undefined) return message;
  if (signature === undefined || sigAlg === undefined)
    throw new RedirectRefused('redirect_signature', 'Signature and SigAlg come together (SAML bindings §3.4.4.1)');
  // §3.4.4.1: the octets signed are the parameters in this order, exactly as they were encoded.
  const signedOctets = [
    `${kind}=${params.get(kind)}`,
    ...(relay !== undefined ? [`RelayState=${relay}`] : []),
    `SigAlg=${sigAlg}`,
  ].join('&');
  return {
    ...message,
    signature: { sigAlg: decode(sigAlg), value: Buffer.from(decode(signature), 'base64'), signedOctets },
  };
}

/** Whether a redirect signature verifies with one of `certificates` (RSA-SHA256 only). */
export function verifyRedirectSignature(
  signature: NonNullable<RedirectMessage['signature']>,
  certificates: readonly X509Certificate[],
): 'valid' | 'algorithm' | 'invalid' {
  if (signature.sigAlg !== ALG.rsaSha256) return 'algorithm';
  for (const certificate of certificates) {
    const verifier = createVerify('RSA-SHA256');
    verifier.update(signature.signedOctets);
    if (verifier.verify(certificate.publicKey, signature.value)) return 'valid';
  }
  return 'invalid';
}

/** The URL that sends `xml` to `endpoint` over HTTP-Redirect, signed with `key` when given. */
export function redirectUrl(
  endpoint: string,
  kind: MessageKind,
  xml: string,
  options: { relayState?: string; key?: KeyObject } = {},
): string {
  const parts = [`${kind}=${encodeURIComponent(deflateRawSync(Buffer.from(xml, 'utf8')).toString('base64'))}`];
  if (options.relayState !== undefined) parts.push(`RelayState=${encodeURIComponent(options.relayState)}`);
  if (options.key) {
    parts.push(`SigAlg=${encodeURIComponent(ALG.rsaSha256)}`);
    const signer = createSign('RSA-SHA256');
    signer.update(parts.join('&'));
    parts.push(`Signature=${encodeURIComponent(signer.sign(options.key).toString('base64'))}`);
  }
  return `${endpoint}${endpoint.includes('?') ? '&' : '?'}${parts.join('&')}`;
}

/**
 * A base64 HTTP-POST value (SAML bindings §3.5.4) decoded, bounded. The binding sends XML uncompressed;
 * a value that is not XML is tried as DEFLATE (bounded), because some SP libraries (node-saml among them)
 * compress over POST too.
 */
export function readPostValue(value: string): string {
  const bytes = Buffer.from(value, 'base64');
  const text = bytes.toString('utf8');
  const xml = /^\s*</.test(text) ? text : inflateBounded(bytes);
  if (Buffer.byteLength(xml) > MAX_XML_BYTES)
    throw new XmlRefused('xml_size', `The XML is larger than ${MAX_XML_BYTES} bytes`);
  return xml;
}
