import { X509Certificate } from 'node:crypto';
import { NAMEID } from './constants.ts';
import type { SamlKeys } from './keys.ts';
import { readMetadata, spMetadataXml, type Endpoint } from './metadata.ts';

/** Which parts of a Response the IdP signs for an SP (SAML core §5.4; profiles §4.1.3.5). */
type SignedParts = 'response' | 'assertion' | 'both';

/** An SP the IdP knows: from its metadata, with the IdP's choices for it. */
export interface ServiceProvider {
  /** Short name of a demo SP (its path under `/saml/demo/sps`). */
  id: string;
  name: string;
  entityId: string;
  /** HTTP-POST AssertionConsumerService URLs, the first the default (SAML metadata §2.4.4). */
  acs: string[];
  slo: Endpoint[];
  signing: X509Certificate[];
  /** Assertions are encrypted to this certificate when present. */
  encryption?: X509Certificate;
  authnRequestsSigned: boolean;
  sign: SignedParts;
  nameIdFormat: string;
  /** The SP's metadata XML, as published or registered. */
  metadata: string;
}

const DEMO_ACS = ['http://127.0.0.1:8765/saml/acs', 'http://localhost:8765/saml/acs'];
const DEMO_SLO = 'http://127.0.0.1:8765/saml/slo';

/**
 * The pre-registered SPs (decisions: SAML demo SPs), published at `{base}/saml/demo/sps`: our own SP,
 * and two demo SPs for your tools, whose key is published so any SAML library can play them: `demo-sp`
 * (assertions signed, emailAddress) and `demo-sp-strict` (signed AuthnRequests required, assertions
 * encrypted, persistent NameIDs). Their ACS URLs are loopback ports and the origin's own `/saml/demo/acs`.
 */
export function demoServiceProviders(base: string, keys: SamlKeys, nowMs: number): ServiceProvider[] {
  const demoAcs = [...DEMO_ACS, `${base}/saml/demo/acs`];
  const make = (
    id: string,
    name: string,
    entityId: string,
    options: {
      acs: string[];
      slo: string;
      signingPem: string;
      encryptionPem?: string;
      authnRequestsSigned: boolean;
      sign: SignedParts;
      nameIdFormat: string;
    },
  ): ServiceProvider => {
    const metadata = spMetadataXml({
      entityId,
      acs: options.acs,
      slo: options.slo,
      signingPem: options.signingPem,
      ...(options.encryptionPem ? { encryptionPem: options.encryptionPem } : {}),
      authnRequestsSigned: options.authnRequestsSigned,
      wantAssertionsSigned: options.sign !== 'response',
    });
    const read = readMetadata(metadata, nowMs);
    return {
      id,
      name,
      entityId,
      acs: options.acs,
      slo: read.slo,
      signing: read.signing,
      ...(options.encryptionPem ? { encryption: new X509Certificate(options.encryptionPem) } : {}),
      authnRequestsSigned: options.authnRequestsSigned,
      sign: options.sign,
      nameIdFormat: options.nameIdFormat,
      metadata,
    };
  };
  return [
    make('portico-sp', 'Portico SP (this origin)', `${base}/saml/sp`, {
      acs: [`${base}/saml/sp/acs`],
      slo: `${base}/saml/sp/slo`,
      signingPem: keys.spSigning.certificatePem,
      encryptionPem: keys.spEncryption.certificatePem,
      authnRequestsSigned: true,
      sign: 'both',
      nameIdFormat: NAMEID.persistent,
    }),
    make('demo-sp', 'Demo SP (signed assertions, email NameID)', `${base}/saml/demo/sps/demo-sp`, {
      acs: demoAcs,
      slo: DEMO_SLO,
      signingPem: keys.demoSp.certificatePem,
      authnRequestsSigned: false,
      sign: 'assertion',
      nameIdFormat: NAMEID.email,
    }),
    make('demo-sp-strict', 'Demo SP (signed requests, encrypted assertions)', `${base}/saml/demo/sps/demo-sp-strict`, {
      acs: demoAcs,
      slo: DEMO_SLO,
      signingPem: keys.demoSp.certificatePem,
      encryptionPem: keys.demoSp.certificatePem,
      authnRequestsSigned: true,
      sign: 'both',
      nameIdFormat: NAMEID.persistent,
    }),
  ];
}
