import type { X509Certificate } from 'node:crypto';
import { ALG, BINDING, NAMEID_FORMATS, NS } from './constants.ts';
import { newSamlId } from './build.ts';
import { certificateBody, certificateFromBase64 } from './keys.ts';
import { attr, childElements, elementsNamed, escapeXml as e, parseXml, textOf } from './xml.ts';

const PROTOCOL = `protocolSupportEnumeration="${NS.protocol}"`;
const keyDescriptor = (use: 'signing' | 'encryption', pem: string) =>
  `<md:KeyDescriptor use="${use}"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificateBody(
    pem,
  )}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>${
    use === 'encryption' ? `<md:EncryptionMethod Algorithm="${ALG.aes256Gcm}"/>` : ''
  }</md:KeyDescriptor>`;
const endpoints = (name: string, url: string) =>
  [BINDING.redirect, BINDING.post].map((b) => `<md:${name} Binding="${b}" Location="${e(url)}"/>`).join('');
const nameIdFormats = () => NAMEID_FORMATS.map((f) => `<md:NameIDFormat>${f}</md:NameIDFormat>`).join('');
const entity = (entityId: string, body: string) =>
  `<md:EntityDescriptor xmlns:md="${NS.metadata}" xmlns:ds="${NS.dsig}" ID="${newSamlId()}" entityID="${e(entityId)}">${body}</md:EntityDescriptor>`;

/** The IdP's metadata (SAML metadata §2.4.3), unsigned; the caller signs it. */
export function idpMetadataXml(input: {
  entityId: string;
  sso: string;
  slo: string;
  signingPem: string;
  encryptionPem: string;
}): string {
  return entity(
    input.entityId,
    `<md:IDPSSODescriptor WantAuthnRequestsSigned="false" ${PROTOCOL}>${keyDescriptor('signing', input.signingPem)}${keyDescriptor(
      'encryption',
      input.encryptionPem,
    )}${endpoints('SingleLogoutService', input.slo)}${nameIdFormats()}${endpoints('SingleSignOnService', input.sso)}</md:IDPSSODescriptor>`,
  );
}

/** An SP's metadata (SAML metadata §2.4.4), unsigned. */
export function spMetadataXml(input: {
  entityId: string;
  acs: readonly string[];
  slo?: string;
  signingPem: string;
  encryptionPem?: string;
  authnRequestsSigned: boolean;
  wantAssertionsSigned: boolean;
}): string {
  const acs = input.acs
    .map(
      (url, index) =>
        `<md:AssertionConsumerService Binding="${BINDING.post}" Location="${e(url)}" index="${index}"${index === 0 ? ' isDefault="true"' : ''}/>`,
    )
    .join('');
  return entity(
    input.entityId,
    `<md:SPSSODescriptor AuthnRequestsSigned="${input.authnRequestsSigned}" WantAssertionsSigned="${input.wantAssertionsSigned}" ${PROTOCOL}>${keyDescriptor(
      'signing',
      input.signingPem,
    )}${input.encryptionPem ? keyDescriptor('encryption', input.encryptionPem) : ''}${
      input.slo ? endpoints('SingleLogoutService', input.slo) : ''
    }${nameIdFormats()}${acs}</md:SPSSODescriptor>`,
  );
}

export interface Endpoint {
  binding: string;
  url: string;
}

/** What a party's metadata says about it, as read from its XML. */
export interface PeerMetadata {
  entityId: string;
  signing: X509Certificate[];
  encryption: X509Certificate[];
  sso: Endpoint[];
  slo: Endpoint[];
  acs: Array<Endpoint & { index?: number; isDefault: boolean }>;
  authnRequestsSigned: boolean;
  wantAssertionsSigned: boolean;
  nameIdFormats: string[];
}

/** A metadata document that cannot be used; `check` names the rule. */
export class MetadataRefused extends Error {
  constructor(
    readonly check: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An endpoint's Location: an absolute http(s) URL without userinfo (SAML metadata §2.2.2). The IdP sends
 * a browser there with an auto-submitted form, so any other scheme (`javascript:`, `data:`) is refused.
 */
function checkedLocation(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username || parsed.password)
    throw new MetadataRefused(
      'metadata_endpoint',
      `An endpoint Location is not an http(s) URL: ${JSON.stringify(url.slice(0, 100))}`,
    );
  return url;
}

/** An entity identifier: a URI of at most 1024 characters (SAML core §8.3.6), with no space or control character. */
function checkedEntityId(entityId: string): string {
  if (entityId.length > 1024 || !/^[a-z][a-z0-9+.-]*:[^\s\u0000-\u001f\u007f-\u009f]+$/iu.test(entityId))
    throw new MetadataRefused('metadata_shape', 'The entityID is not a URI of at most 1024 characters');
  return entityId;
}

const endpointsOf = (descriptor: Element | undefined, name: string): Endpoint[] =>
  descriptor
    ? childElements(descriptor, NS.metadata, name).flatMap((el) => {
        const binding = attr(el, 'Binding');
        const url = attr(el, 'Location');
        return binding && url ? [{ binding, url: checkedLocation(url) }] : [];
      })
    : [];

/**
 * Reads an EntityDescriptor with an IDPSSODescriptor or SPSSODescriptor. Its certificates are checked:
 * each parses, holds an RSA key of at least 2048 bits, and is valid at `nowMs`.
 */
export function readMetadata(xml: string, nowMs: number): PeerMetadata {
  const root = parseXml(xml).documentElement;
  if (root.namespaceURI !== NS.metadata || root.localName !== 'EntityDescriptor')
    throw new MetadataRefused('metadata_shape', 'The metadata is not an md:EntityDescriptor');
  const entityId = attr(root, 'entityID');
  if (!entityId) throw new MetadataRefused('metadata_shape', 'The EntityDescriptor has no entityID');
  checkedEntityId(entityId);
  const idp = childElements(root, NS.metadata, 'IDPSSODescriptor')[0];
  const sp = childElements(root, NS.metadata, 'SPSSODescriptor')[0];
  const descriptor = idp ?? sp;
  if (!descriptor)
    throw new MetadataRefused('metadata_shape', 'The metadata has no IDPSSODescriptor or SPSSODescriptor');
  const signing: X509Certificate[] = [];
  const encryption: X509Certificate[] = [];
  for (const kd of childElements(descriptor, NS.metadata, 'KeyDescriptor')) {
    const use = attr(kd, 'use');
    for (const body of elementsNamed(kd, NS.dsig, 'X509Certificate')) {
      const certificate = checkedCertificate(textOf(body) ?? '', nowMs);
      if (use !== 'encryption') signing.push(certificate);
      if (use !== 'signing') encryption.push(certificate);
    }
  }
  const acs = sp
    ? childElements(sp, NS.metadata, 'AssertionConsumerService').flatMap((el) => {
        const binding = attr(el, 'Binding');
        const url = attr(el, 'Location');
        const index = Number(attr(el, 'index'));
        return binding && url
          ? [
              {
                binding,
                url: checkedLocation(url),
                isDefault: attr(el, 'isDefault') === 'true',
                ...(Number.isInteger(index) ? { index } : {}),
              },
            ]
          : [];
      })
    : [];
  return {
    entityId,
    signing,
    encryption,
    sso: endpointsOf(idp, 'SingleSignOnService'),
    slo: endpointsOf(descriptor, 'SingleLogoutService'),
    acs,
    authnRequestsSigned: attr(sp, 'AuthnRequestsSigned') === 'true',
    wantAssertionsSigned: attr(sp, 'WantAssertionsSigned') === 'true',
    nameIdFormats: childElements(descriptor, NS.metadata, 'NameIDFormat').map((el) => textOf(el) ?? ''),
  };
}

/** A metadata certificate: parses, RSA of 2048 bits or more, valid now. */
function checkedCertificate(body: string, nowMs: number): X509Certificate {
  const certificate = certificateFromBase64(body);
  if (!certificate) throw new MetadataRefused('metadata_certificate', 'A ds:X509Certificate is not a certificate');
  const key = certificate.publicKey;
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048)
    throw new MetadataRefused(
      'metadata_certificate',
      'A metadata certificate must hold an RSA key of at least 2048 bits',
    );
  if (Date.parse(certificate.validFrom) > nowMs || Date.parse(certificate.validTo) < nowMs)
    throw new MetadataRefused(
      'metadata_certificate',
      `A metadata certificate is not valid now (${certificate.validFrom} to ${certificate.validTo})`,
    );
  return certificate;
}
