import { generateHolderKey, type KeyPair } from '../../../services/credentials/keys/index.ts';
import {
  createDocumentSigner,
  createIacaRoot,
  fullDate,
  issueMdoc,
  type CertifiedKey,
} from '../../../services/credentials/mdoc/index.ts';

const DAY = 86_400;
export const at = (seconds: number) => new Date(seconds * 1000);

export interface MdocFixture {
  iaca: CertifiedKey;
  signer: CertifiedKey;
  device: KeyPair;
}

/** An IACA root and a document signer valid around `now` (seconds), and a device key. */
export async function mdocFixture(now: number): Promise<MdocFixture> {
  const iaca = await createIacaRoot({ notBefore: at(now - 365 * DAY), notAfter: at(now + 5 * 365 * DAY) });
  const signer = await createDocumentSigner({ iaca, notBefore: at(now - 30 * DAY), notAfter: at(now + 365 * DAY) });
  return { iaca, signer, device: await generateHolderKey('ES256') };
}

const MDL_ELEMENTS = {
  family_name: 'Anderson',
  given_name: 'Alice',
  birth_date: fullDate('1990-04-12'),
  issuing_country: 'FR',
  document_number: 'FR-123456',
  age_over_18: true,
  portrait: new Uint8Array([0xff, 0xd8, 0xff, 0xe0]),
};

export function issueMdl(fx: MdocFixture, now: number, overrides: Partial<Parameters<typeof issueMdoc>[0]> = {}) {
  return issueMdoc({
    docType: 'org.iso.18013.5.1.mDL',
    namespaces: { 'org.iso.18013.5.1': MDL_ELEMENTS, 'org.iso.18013.5.1.aamva': { DHS_compliance: 'F' } },
    deviceKey: fx.device.publicJwk,
    signer: { privateKey: fx.signer.privateKey, x5chain: [fx.signer.certificate] },
    signed: now - 60,
    validFrom: now - 60,
    validUntil: now + 30 * DAY,
    ...overrides,
  });
}
