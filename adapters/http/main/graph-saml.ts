import { X509Certificate } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Config } from '../../config.ts';
import type { Clock } from '../../../services/clock.ts';
import type { EventLog } from '../../../services/event-log.ts';
import type { KeyRing } from '../../../services/keys.ts';
import { SamlIdp } from '../../../services/saml/idp/service.ts';
import type { SamlKeys } from '../../../services/saml/keys.ts';
import { idpMetadataXml } from '../../../services/saml/metadata.ts';
import { demoServiceProviders, type ServiceProvider } from '../../../services/saml/service-providers.ts';
import { signElement } from '../../../services/saml/signature.ts';
import type { TrustedIdp } from '../../../services/saml/sp/consume.ts';
import { SamlSp } from '../../../services/saml/sp/service.ts';
import { parseXml } from '../../../services/saml/xml.ts';
import { loadOrCreateSamlKeys } from '../../keys/saml-key-file.ts';
import type { OAuthPart } from './graph-oauth.ts';

/** The SAML IdP, our SP and the demo SPs, built once their keys exist. */
export interface SamlServices {
  keys: SamlKeys;
  idp: SamlIdp;
  sp: SamlSp;
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
  const build = async (): Promise<SamlServices> => {
    const keys = await loadOrCreateSamlKeys(file, shared.clock.now());
    const serviceProviders = demoServiceProviders(base, keys);
    const byEntity = new Map(serviceProviders.map((sp) => [sp.entityId, sp]));
    const useOnce = (purpose: string, value: string) => shared.oauth.deps.useOnce(purpose, value);
    const urls = { entityId: `${base}/saml/idp`, sso: `${base}/saml/idp/sso`, slo: `${base}/saml/idp/slo` };
    const idp = new SamlIdp(
      shared.log,
      shared.clock,
      // Persistent NameIDs are pairwise values per SP, salted like the OpenID Provider's pairwise subjects.
      { entityId: urls.entityId, signing: keys.idpSigning, persistentSalt: shared.keys.secret('pairwise-subject') },
      urls,
      { users: shared.oauth.deps.users, serviceProvider: async (entityId) => byEntity.get(entityId), useOnce },
    );
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
    return {
      keys,
      idp,
      sp,
      serviceProviders,
      ourIdp: {
        entityId: urls.entityId,
        signing: [new X509Certificate(keys.idpSigning.certificatePem)],
        sso: urls.sso,
      },
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
  return {
    base,
    services: () => {
      built ??= build().catch((error: unknown) => {
        built = undefined;
        throw error;
      });
      return built;
    },
  };
}
