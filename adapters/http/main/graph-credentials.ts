import type { Config } from '../../config.ts';
import type { Clock } from '../../../services/clock.ts';
import type { EventLog } from '../../../services/event-log.ts';
import type { KeyRing } from '../../../services/keys.ts';
import type { CredentialStatus } from '../../../projections/credential-status.ts';
import { IssuerAuthorization } from '../../../services/issuer/authorization.ts';
import { IssuerService } from '../../../services/issuer/service.ts';
import { ISSUING_COUNTRY, issuerSettings } from '../../../services/issuer/settings.ts';
import { credentialTrustOf, issuerKeys } from '../../../services/issuer/trust.ts';
import { demoUsers } from '../../../services/oauth/demo-users.ts';
import { StatusIndexAllocator, statusSlotsOf } from '../../../services/status/allocator.ts';
import { StatusChecker } from '../../../services/status/check.ts';
import { StatusLists } from '../../../services/status/lists.ts';
import { mainOriginListSource, type StatusListSource } from '../../../services/status/source.ts';
import { statusTrustOf } from '../../../services/status/trust.ts';
import { verifierSettings, type CredentialTrust } from '../../../services/verifier/settings.ts';
import { VerifierService } from '../../../services/verifier/service.ts';
import { loadIssuerPki } from '../../issuer/pki-file.ts';
import { loadVerifierPki } from '../../verifier/pki-file.ts';
import { pemCertificatesOf } from '../../pem-env.ts';
import type { GuardedHttp } from '../../outbound/guarded-http.ts';
import type { MainContext } from './context.ts';

/** MDOC_IACA_ROOT_PEM (PEM text or a file path): mdoc roots the verifier trusts besides our issuer's IACA. */
const extraIacaRoots = (pem: string | undefined) =>
  pemCertificatesOf(pem, (reason) => {
    throw new Error(`MDOC_IACA_ROOT_PEM ${reason}`);
  });

/** A status check trusting lists as `trust` trusts credentials: our issuer's keys, and x5c chains to its IACAs. */
const checkerOf = (source: StatusListSource, trust: CredentialTrust, clock: Clock) =>
  new StatusChecker(
    source,
    statusTrustOf(trust, () => Math.floor(clock.now() / 1000)),
    clock,
  );

/**
 * The credential half of the origin: the OID4VCI issuer with its PKI and authorization server, credential
 * status, and the OID4VP verifier. The signing material is provisioned here, under the data-dir lock.
 */
export async function buildCredentials(
  config: Config,
  shared: { log: EventLog; keys: KeyRing; clock: Clock; outbound: GuardedHttp; credentialStatus: CredentialStatus },
): Promise<
  Pick<
    MainContext,
    'issuer' | 'issuerService' | 'issuerAuthorization' | 'credentialTrust' | 'credentialStatus' | 'verifier'
  >
> {
  const { log, keys, clock, outbound } = shared;
  const settings = issuerSettings(config.baseUrl, { dpopNonceRequired: config.dpopNonceRequired, ...config.oid4vci });
  const pki = await loadIssuerPki(config.dataDir, settings.issuer, ISSUING_COUNTRY, clock.now());
  const published = await issuerKeys(keys, pki);
  const credentialTrust = credentialTrustOf(settings, pki, keys, published);
  const lists = new StatusLists(shared.credentialStatus, keys, settings.issuer, clock, pki.documentSigner);
  const source = mainOriginListSource(settings.issuer, lists, outbound);
  const slots = statusSlotsOf(new StatusIndexAllocator(log, clock), lists);
  const users = new Map(demoUsers(config.demo).map((u) => [u.id, u]));
  const issuerService = new IssuerService(log, keys, pki, settings, clock, users, slots);

  const verifierPki = await loadVerifierPki(
    config.dataDir,
    new URL(config.baseUrl).hostname.replace(/^\[|\]$/g, ''),
    clock.now(),
  );
  const verifierTrust = {
    ...credentialTrust,
    iacaRoots: [...credentialTrust.iacaRoots, ...extraIacaRoots(config.mdocIacaRootPem)],
  };
  const settingsOfVerifier = verifierSettings(config.baseUrl);
  return {
    issuer: { settings, pki, keys: published },
    issuerService,
    issuerAuthorization: new IssuerAuthorization(log, issuerService),
    credentialTrust,
    credentialStatus: { lists, slots, source, checker: checkerOf(source, credentialTrust, clock) },
    verifier: {
      service: new VerifierService(
        log,
        keys,
        verifierPki,
        settingsOfVerifier,
        verifierTrust,
        clock,
        checkerOf(source, verifierTrust, clock),
      ),
      settings: settingsOfVerifier,
      pki: verifierPki,
    },
  };
}
