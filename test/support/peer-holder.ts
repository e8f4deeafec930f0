import 'reflect-metadata';
import { DeviceResponse as AuthDeviceResponse } from '@auth0/mdl';
import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { JWK } from 'jose';
import { dataItem, decodeCbor, encodeCbor } from '../../services/credentials/mdoc/index.ts';

/**
 * A holder built only from peer libraries, for interop tests: SD-JWT VC presentations by
 * `@sd-jwt/sd-jwt-vc`, mdoc DeviceResponses by `@auth0/mdl`. No presentation code of ours is involved.
 */

/** An SD-JWT VC presentation disclosing `disclose`, with a KB-JWT of `kbPayload` (aud, nonce, iat, …). */
export async function peerSdJwtPresentation(
  holderPrivate: JWK,
  sdJwtVc: string,
  disclose: Record<string, boolean>,
  kbPayload: Record<string, unknown>,
): Promise<string> {
  const lib = new SDJwtVcInstance({
    hasher: digest,
    hashAlg: 'sha-256',
    kbSigner: await ES256.getSigner(holderPrivate),
    kbSignAlg: 'ES256',
    signAlg: 'ES256',
    verifier: () => true,
  } as never);
  return lib.present(sdJwtVc, disclose as never, { kb: { payload: kbPayload } } as never);
}

const MDL = 'org.iso.18013.5.1.mDL';

/** An mDL DeviceResponse releasing family_name and document_number, signed over `sessionTranscript` (decoded CBOR). */
export async function peerMdocPresentation(
  holderPrivate: JWK,
  issuerSigned: string,
  sessionTranscript: unknown,
): Promise<string> {
  const bytes = encodeCbor(
    new Map<string, unknown>([
      ['version', '1.0'],
      [
        'documents',
        [
          new Map<string, unknown>([
            ['docType', MDL],
            ['issuerSigned', decodeCbor(Buffer.from(issuerSigned, 'base64url'))],
          ]),
        ],
      ],
      ['status', 0],
    ]),
  );
  const definition = {
    id: 'mdl',
    input_descriptors: [
      {
        id: MDL,
        format: { mso_mdoc: { alg: ['ES256'] } },
        constraints: {
          limit_disclosure: 'required',
          fields: ['family_name', 'document_number'].map((e) => ({
            path: [`$['org.iso.18013.5.1']['${e}']`],
            intent_to_retain: false,
          })),
        },
      },
    ],
  };
  const response = await AuthDeviceResponse.from(bytes)
    .usingPresentationDefinition(definition)
    .usingSessionTranscriptBytes(Buffer.from(encodeCbor(dataItem(sessionTranscript))))
    .authenticateWithSignature(holderPrivate as never, 'ES256')
    .sign();
  return Buffer.from(response.encode()).toString('base64url');
}
