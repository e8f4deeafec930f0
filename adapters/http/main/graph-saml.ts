import { X509Certificate } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Config } from '../../config.ts';
import type { Clock } from '../../../services/clock.ts';
import type { EventLog } from '../../../services/event-log.ts';
import type { KeyRing } from '../../../services/keys.ts';
import { SamlIdp } from '../../../services/saml/idp/service.ts';
import { SamlIdpLogout } from '../../../services/saml/idp/logout.ts';
import type { SamlKeys } from '../../../services/saml/keys.ts';
import { idpMetadataXml, MetadataRefused, readMetadata } from '../../../services/saml/metadata.ts';
import { BINDING } from '../../../services/saml/constants.ts';
import { invalidRequest } from '../../../services/errors.ts';
import { demoServiceProviders, type ServiceProvider } from '../../../services/saml/service-providers.ts';
import { signElement } from '../../../services/saml/signature.ts';
import type { TrustedIdp } from '../../../services/saml/sp/consume.ts';
import { SamlSp } from '../../../services/saml/sp/service.ts';
import { SamlSpLogout } from '../../../services/saml/sp/logout.ts';
import { RegisteredServiceProviders } from '../../../services/saml/registered-sps.ts';
import { parseXml, XmlRefused } from '../../../services/saml/xml.ts';
import { decodeSaml, type SamlDecodeInput } from '../../../services/saml/decode.ts';
import { loadOrCreateSamlKeys } from '../../keys/saml-key-file.ts';
import type { OAuthPart } from './graph-oauth.ts';

/** The SAML IdP, our SP and the demo SPs, built once their keys exist. */
interface SamlServices {
  keys: SamlKeys;
  idp: SamlIdp;
  /** Single logout at the IdP, propagated to the session's SPs. */
  idpLogout: SamlIdpLogout;
  sp: SamlSp;
  /** Single logout at our SP, with our IdP. */
  spLogout: SamlSpLogout;
  serviceProviders: ServiceProvider[];
  /** Our IdP as our SP trusts it (its metadata's certificate and SSO URL). */
  ourIdp: TrustedIdp & { sso: string };
  idpMetadata: string;
  spMetadata: string;
}

/** SAML 2.0 (docs/saml.md): built on first use, because its RSA keys are made then (a few hundred ms). */
export interface SamlPart {
  base: string;
  services(): Promise<SamlServices>;
  /**
   * Another IdP for our SP, from its metadata URL (fetched through the outbound guard; its certificates
   * checked): what a login started with `idp_metadata_url` is sent to and checked against.
   */
  foreignIdp(metadataUrl: string): Promise<TrustedIdp & { sso: string; foreign: true }>;
  /** The looking glass for SAML, with the certificates we know and the keys that decrypt (ours, the demo SPs'). */
  decode(input: SamlDecodeInput): ReturnType<typeof decodeSaml>;
  /**
   * DYNAMIC_CLIENTS (decisions §11): registers an SP by its metadata, posted or fetched through the outbound
   * guard; undefined when the extension is off.
   */
  register?: (input: { metadata?: string; metadataUrl?: string }) => Promise<ServiceProvider>;
}

/** Signs a metadata document (its EntityDescriptor carries an ID; the signature goes first, SAML metadata §3). */
const signedMetadata = (xml: string, keys: SamlKeys['idpSigning']) =>
  signElement(xml, parseXml(xml).documentElement.getAttribute('ID')!, keys, false);

export function buildSaml(
  config: Config,
  shared: { log: EventLog; clock: Clock; keys: KeyRing; oauth: OAuthPart },
): SamlPart {
  const base = config.baseUrl;
  const file = join(dirname(config.keysFile), 'saml-keys.json');
  let built: Promise<SamlServices> | undefined;
  let registered: RegisteredServiceProviders | undefined;
  const build = async (): Promise<SamlServices> => {
    const keys = await loadOrCreateSamlKeys(file, shared.clock.now());
    const serviceProviders = demoServiceProviders(base, keys, shared.clock.now());
    const byEntity = new Map(serviceProviders.map((sp) => [sp.entityId, sp]));
    registered = config.extensions.dynamicClients
      ? new RegisteredServiceProviders(shared.log, shared.clock, (entityId) => byEntity.has(entityId))
      : undefined;
    const findSp = async (entityId: string) => byEntity.get(entityId) ?? (await registered?.find(entityId));
    const useOnce = (purpose: string, value: string) => shared.oauth.deps.useOnce(purpose, value);
    const urls = { entityId: `${base}/saml/idp`, sso: `${base}/saml/idp/sso`, slo: `${base}/saml/idp/slo` };
    const idp = new SamlIdp(
      shared.log,
      shared.clock,
      // Persistent NameIDs are pairwise values per SP, salted like the OpenID Provider's pairwise subjects.
      { entityId: urls.entityId, signing: keys.idpSigning, persistentSalt: shared.keys.secret('pairwise-subject') },
      urls,
      { users: shared.oauth.deps.users, serviceProvider: findSp, useOnce, sessions: shared.oauth.sessions },
    );
    const idpLogout = new SamlIdpLogout(idp, shared.clock, findSp, useOnce);
    const spEntity = `${base}/saml/sp`;
    const sp = new SamlSp(
      shared.log,
      shared.clock,
      {
        entityId: spEntity,
        acsUrl: `${base}/saml/sp/acs`,
        signing: keys.spSigning,
        decryptionKeys: [keys.spEncryption.privateKeyPem],
      },
      useOnce,
    );
    const ourIdp = {
      entityId: urls.entityId,
      signing: [new X509Certificate(keys.idpSigning.certificatePem)],
      sso: urls.sso,
    };
    const spLogout = new SamlSpLogout(
      sp,
      shared.clock,
      { ...ourIdp, slo: [BINDING.redirect, BINDING.post].map((binding) => ({ binding, url: urls.slo })) },
      `${base}/saml/sp/slo`,
      useOnce,
    );
    return {
      keys,
      spLogout,
      idp,
      idpLogout,
      sp,
      serviceProviders,
      ourIdp,
      idpMetadata: signedMetadata(
        idpMetadataXml({
          entityId: urls.entityId,
          sso: urls.sso,
          slo: urls.slo,
          signingPem: keys.idpSigning.certificatePem,
          encryptionPem: keys.idpEncryption.certificatePem,
        }),
        keys.idpSigning,
      ),
      spMetadata: signedMetadata(byEntity.get(spEntity)!.metadata, keys.spSigning),
    };
  };
  /** A party's metadata from a URL a caller chose: through the outbound guard, 200 only. */
  const fetchMetadata = async (url: string, party: 'IdP' | 'SP') => {
    const response = await shared.oauth.documentFetches.send(url, {
      headers: { accept: 'application/samlmetadata+xml, application/xml' },
    });
    if (response.status !== 200) throw invalidRequest(`The ${party} metadata answered HTTP ${response.status}`);
    return response.body.toString('utf8');
  };
  const foreignIdp = async (metadataUrl: string) => {
    const xml = await fetchMetadata(metadataUrl, 'IdP');
    let metadata;
    try {
      metadata = readMetadata(xml, shared.clock.now());
    } catch (error) {
      if (error instanceof MetadataRefused || error instanceof XmlRefused)
        throw invalidRequest(`The IdP metadata is refused (${error.check}): ${error.message}`);
      throw error;
    }
    const sso =
      metadata.sso.find((e) => e.binding === BINDING.redirect) ?? metadata.sso.find((e) => e.binding === BINDING.post);
    if (!sso || !metadata.signing.length)
      throw invalidRequest('The IdP metadata names no SingleSignOnService or no signing certificate');
    if (sso.binding !== BINDING.redirect)
      throw invalidRequest('Our SP sends AuthnRequests over HTTP-Redirect: the IdP metadata has no such endpoint');
    return { entityId: metadata.entityId, signing: metadata.signing, sso: sso.url, foreign: true as const };
  };
  const decode = async (input: SamlDecodeInput) => {
    const { keys } = await services();
    const certificate = (name: string, pem: string) => ({ name, certificate: new X509Certificate(pem) });
    return decodeSaml(
      input,
      {
        certificates: [
          certificate('this IdP (signing)', keys.idpSigning.certificatePem),
          certificate('this SP (signing)', keys.spSigning.certificatePem),
          certificate('the demo SPs (published key)', keys.demoSp.certificatePem),
        ],
        decryptionKeys: [keys.spEncryption.privateKeyPem, keys.idpEncryption.privateKeyPem, keys.demoSp.privateKeyPem],
      },
      shared.clock.now(),
    );
  };
  const services = () => {
    built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
  const register = async (input: { metadata?: string; metadataUrl?: string }) => {
    await services();
    let metadata = input.metadata;
    if (input.metadataUrl) {
      metadata = await fetchMetadata(input.metadataUrl, 'SP');
    }
    return registered!.register(metadata ?? '', input.metadataUrl ?? 'posted');
  };
  return {
    base,
    foreignIdp,
    decode,
    services,
    ...(config.extensions.dynamicClients ? { register } : {}),
  };
}
