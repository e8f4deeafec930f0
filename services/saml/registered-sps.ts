import { samlServiceProviderMachine, samlServiceProviderStates } from '../../machines/saml-service-provider.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import { sha256 } from '../crypto/random.ts';
import { invalidRequest, oauthError } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import { BINDING, NAMEID, NAMEID_FORMATS } from './constants.ts';
import { MetadataRefused, readMetadata } from './metadata.ts';
import type { ServiceProvider } from './service-providers.ts';
import { XmlRefused } from './xml.ts';

/** An SP as registered metadata describes it; undefined when the metadata no longer holds (e.g. an expired certificate). */
function serviceProviderOf(metadata: string, nowMs: number): ServiceProvider {
  const read = readMetadata(metadata, nowMs);
  const acs = read.acs.filter((e) => e.binding === BINDING.post);
  if (!acs.length)
    throw new MetadataRefused('metadata_acs', 'The SP metadata has no HTTP-POST AssertionConsumerService');
  if (!read.signing.length)
    throw new MetadataRefused('metadata_certificate', 'The SP metadata has no signing certificate');
  const ordered = [...acs.filter((e) => e.isDefault), ...acs.filter((e) => !e.isDefault)];
  const encryption = read.encryption.find((c) => !read.signing.includes(c)) ?? read.encryption[0];
  return {
    id: `registered:${sha256(read.entityId).slice(0, 12)}`,
    name: `Registered SP ${read.entityId}`,
    entityId: read.entityId,
    acs: ordered.map((e) => e.url),
    slo: read.slo,
    signing: read.signing,
    ...(encryption ? { encryption } : {}),
    authnRequestsSigned: read.authnRequestsSigned,
    sign: read.wantAssertionsSigned ? 'both' : 'response',
    nameIdFormat: read.nameIdFormats.find((f) => NAMEID_FORMATS.includes(f)) ?? NAMEID.email,
    metadata,
  };
}

/**
 * SPs registered by their metadata (DYNAMIC_CLIENTS=true): each a `saml-sp:` actor holding the XML; the
 * IdP reads it again, certificates checked, whenever it looks the SP up.
 */
export class RegisteredServiceProviders {
  private readonly actors: ActorRuntime<typeof samlServiceProviderMachine>;

  constructor(
    log: EventLog,
    private readonly clock: Clock,
    private readonly reserved: (entityId: string) => boolean,
  ) {
    this.actors = ActorRuntime.of(log, samlServiceProviderMachine, 'saml-sp');
  }

  async find(entityId: string): Promise<ServiceProvider | undefined> {
    const { snapshot } = await this.actors.get(sha256(entityId));
    const metadata = samlServiceProviderStates.registered(snapshot) ? snapshot.context.metadata : undefined;
    if (!metadata) return undefined;
    try {
      return serviceProviderOf(metadata, this.clock.now());
    } catch {
      return undefined;
    }
  }

  /** Registers an SP's metadata once; its entity ID must be new and not a demo SP's. */
  async register(metadata: string, source: string): Promise<ServiceProvider> {
    let sp: ServiceProvider;
    try {
      sp = serviceProviderOf(metadata, this.clock.now());
    } catch (error) {
      if (error instanceof MetadataRefused || error instanceof XmlRefused)
        throw invalidRequest(`The SP metadata is refused (${error.check}): ${error.message}`);
      throw error;
    }
    if (this.reserved(sp.entityId)) throw invalidRequest(`${sp.entityId} is a demo SP`);
    const outcome = await this.actors.create(sha256(sp.entityId), {
      type: 'sp.registered',
      at: this.clock.now(),
      entityId: sp.entityId,
      metadata,
      source,
    });
    if (!outcome.accepted)
      throw oauthError('invalid_request', `An SP with the entity ID ${sp.entityId} is already registered`);
    return sp;
  }
}
