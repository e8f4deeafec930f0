import 'reflect-metadata';
import { DeviceResponse as AuthDeviceResponse, Document as AuthDocument, MDoc, Verifier } from '@auth0/mdl';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { exportJWK } from 'jose';
import { generateHolderKey } from '../../services/credentials/keys/index.ts';
import {
  createDeviceResponse,
  createDocumentSigner,
  createIacaRoot,
  dataItem,
  encodeCbor,
  issueMdoc,
  oid4vpSessionTranscript,
  verifyDeviceResponse,
} from '../../services/credentials/mdoc/index.ts';
import { issueSdJwtVc, presentSdJwtVc, verifySdJwtVc } from '../../services/credentials/sd-jwt/index.ts';
import { opsPerSecond, type Bench, type BenchRow } from './types.ts';

/**
 * SD-JWT VC and mdoc operations per second, ours beside the third-party library doing the same
 * operation on the same data in the same run: @sd-jwt/sd-jwt-vc 0.19 for SD-JWT VC, @auth0/mdl 3
 * for mdoc. Every pair is checked to produce a verifiable result before it is timed.
 */
const AUD = 'https://verifier.example';
const CLAIMS = {
  given_name: 'Alice',
  family_name: 'Anderson',
  birthdate: '1990-04-12',
  address: { street_address: '1 Rue de Rivoli', locality: 'Paris', country: 'FR' },
  nationalities: ['FR', 'DE'],
};
const PATHS: (string | number)[][] = [
  ['given_name'],
  ['family_name'],
  ['birthdate'],
  ['address'],
  ['address', 'street_address'],
  ['address', 'locality'],
  ['nationalities', 0],
  ['nationalities', 1],
];
const LIB_FRAME = {
  _sd: ['given_name', 'family_name', 'birthdate', 'address'],
  address: { _sd: ['street_address', 'locality'] },
  nationalities: { _sd: [0, 1] },
};
const SHOWN: (string | number)[][] = [['given_name'], ['address', 'locality']];
const LIB_SHOWN = { given_name: true, address: { locality: true } };
const NS = 'org.iso.18013.5.1';
const DOCTYPE = 'org.iso.18013.5.1.mDL';
const ELEMENTS = {
  family_name: 'Anderson',
  given_name: 'Alice',
  issuing_country: 'FR',
  document_number: 'FR-123456',
  age_over_18: true,
  age_over_21: true,
};
const RELEASED = ['given_name', 'age_over_18'];

function pair(name: string, ours: number, theirs: number, library: string): BenchRow[] {
  return [
    { name: `${name}: ours`, value: ours, unit: 'ops/s', ratio: { against: library, value: ours / theirs } },
    { name: `${name}: ${library}`, value: theirs, unit: 'ops/s' },
  ];
}

async function sdJwtRows(): Promise<BenchRow[]> {
  const now = Math.floor(Date.now() / 1000);
  const issuer = await generateHolderKey('ES256', { extractable: true });
  const holder = await generateHolderKey('ES256', { extractable: true });
  const jwks = { keys: [{ ...issuer.publicJwk, kid: issuer.kid }] };
  const lib = new SDJwtVcInstance({
    signer: await ES256.getSigner(await exportJWK(issuer.privateKey)),
    signAlg: 'ES256',
    verifier: await ES256.getVerifier(issuer.publicJwk),
    hasher: digest,
    hashAlg: 'sha-256',
    saltGenerator: generateSalt,
    kbSigner: await ES256.getSigner(await exportJWK(holder.privateKey)),
    kbSignAlg: 'ES256',
    kbVerifier: await ES256.getVerifier(holder.publicJwk),
  });
  const ourIssue = () =>
    issueSdJwtVc({
      issuer: { alg: 'ES256', privateKey: issuer.privateKey, kid: issuer.kid, iss: 'https://issuer.example' },
      vct: 'urn:eudi:pid:1',
      claims: CLAIMS,
      disclosable: PATHS,
      holderJwk: holder.publicJwk,
      now,
      expiresIn: 3600,
    });
  const libIssue = () =>
    lib.issue(
      {
        iss: 'https://issuer.example',
        iat: now,
        exp: now + 3600,
        vct: 'urn:eudi:pid:1',
        cnf: { jwk: holder.publicJwk },
        ...CLAIMS,
      } as never,
      LIB_FRAME as never,
    );
  const kb = { holder: { alg: 'ES256' as const, privateKey: holder.privateKey }, aud: AUD, nonce: 'n', now };
  const ourCredential = (await ourIssue()).sdJwt;
  const libCredential = await libIssue();
  const ourPresent = () => presentSdJwtVc(ourCredential, { disclose: SHOWN, keyBinding: kb });
  const libPresent = () =>
    lib.present(libCredential, LIB_SHOWN as never, { kb: { payload: { aud: AUD, nonce: 'n', iat: now } } } as never);
  const ourPresentation = await ourPresent();
  const libPresentation = await libPresent();
  const ourVerify = async () => {
    const r = await verifySdJwtVc(ourPresentation, { issuerJwks: jwks, now, keyBinding: { aud: AUD, nonce: 'n' } });
    if (!r.valid) throw new Error(`bench presentation did not verify: ${r.check}`);
  };
  const libVerify = () => lib.verify(libPresentation, { keyBindingNonce: 'n', currentDate: now } as never);
  await ourVerify();
  await libVerify();
  return [
    ...pair(
      'SD-JWT VC issue, 8 SD claims',
      await opsPerSecond(ourIssue),
      await opsPerSecond(libIssue),
      '@sd-jwt/sd-jwt-vc',
    ),
    ...pair(
      'SD-JWT VC present, 2 claims + KB-JWT',
      await opsPerSecond(ourPresent),
      await opsPerSecond(libPresent),
      '@sd-jwt/sd-jwt-vc',
    ),
    ...pair(
      'SD-JWT VC verify with KB-JWT',
      await opsPerSecond(ourVerify),
      await opsPerSecond(libVerify),
      '@sd-jwt/sd-jwt-vc',
    ),
  ];
}

async function mdocRows(): Promise<BenchRow[]> {
  const now = Math.floor(Date.now() / 1000);
  const at = (s: number) => new Date(s * 1000);
  const iaca = await createIacaRoot({ notBefore: at(now - 86_400), notAfter: at(now + 365 * 86_400) });
  const signer = await createDocumentSigner({ iaca, notBefore: at(now - 3600), notAfter: at(now + 90 * 86_400) });
  const device = await generateHolderKey('ES256', { extractable: true });
  const signerJwk = await exportJWK(signer.privateKey);
  const deviceJwk = await exportJWK(device.privateKey);
  const transcript = await oid4vpSessionTranscript({
    clientId: 'x509_san_dns:verifier.example',
    nonce: 'n',
    responseUri: `${AUD}/response`,
  });
  const transcriptBytes = Buffer.from(encodeCbor(dataItem(transcript)));

  const ourIssue = () =>
    issueMdoc({
      docType: DOCTYPE,
      namespaces: { [NS]: ELEMENTS },
      deviceKey: device.publicJwk,
      signer: { privateKey: signer.privateKey, x5chain: [signer.certificate] },
      signed: now - 60,
      validFrom: now - 60,
      validUntil: now + 86_400,
    });
  const libIssue = async () =>
    new MDoc([
      await new AuthDocument(DOCTYPE)
        .addIssuerNameSpace(NS, ELEMENTS)
        .useDigestAlgorithm('SHA-256')
        .addValidityInfo({ signed: at(now - 60), validFrom: at(now - 60), validUntil: at(now + 86_400) })
        .addDeviceKeyInfo({ deviceKey: device.publicJwk })
        .sign({ issuerPrivateKey: signerJwk, issuerCertificate: signer.pem, alg: 'ES256' }),
    ]).encode();
  const ours = ourIssue();
  const theirs = await libIssue();
  const pd = {
    id: 'bench',
    input_descriptors: [
      {
        id: DOCTYPE,
        format: { mso_mdoc: { alg: ['ES256'] } },
        constraints: {
          limit_disclosure: 'required',
          fields: RELEASED.map((e) => ({ path: [`$['${NS}']['${e}']`], intent_to_retain: false })),
        },
      },
    ],
  };
  const ourRespond = () =>
    createDeviceResponse({
      issuerSigned: ours.issuerSigned,
      disclose: { [NS]: RELEASED },
      deviceKey: { privateKey: device.privateKey },
      sessionTranscript: transcript,
    });
  const libRespond = async () =>
    (
      await AuthDeviceResponse.from(theirs)
        .usingPresentationDefinition(pd)
        .usingSessionTranscriptBytes(transcriptBytes)
        .authenticateWithSignature(deviceJwk, 'ES256')
        .sign()
    ).encode();
  const ourResponse = ourRespond();
  const libResponse = await libRespond();
  const ourVerify = async () => {
    const r = await verifyDeviceResponse(ourResponse, {
      trustedRoots: [iaca.certificate],
      now,
      sessionTranscript: transcript,
    });
    if (!r.valid) throw new Error(`bench DeviceResponse did not verify: ${r.check}`);
  };
  const verifier = new Verifier([iaca.pem]);
  const libVerify = async () => {
    let failed: string | undefined;
    await verifier.verify(libResponse, {
      encodedSessionTranscript: transcriptBytes,
      onCheck: (c) => {
        if (c.status === 'FAILED') failed = c.check;
      },
    });
    if (failed) throw new Error(`@auth0/mdl bench response failed: ${failed}`);
  };
  await ourVerify();
  await libVerify();
  return [
    ...pair('mdoc issue, 6 elements', await opsPerSecond(ourIssue), await opsPerSecond(libIssue), '@auth0/mdl'),
    ...pair(
      'mdoc DeviceResponse, 2 elements',
      await opsPerSecond(ourRespond),
      await opsPerSecond(libRespond),
      '@auth0/mdl',
    ),
    ...pair('mdoc verify DeviceResponse', await opsPerSecond(ourVerify), await opsPerSecond(libVerify), '@auth0/mdl'),
  ];
}

const bench: Bench = async () => [...(await sdJwtRows()), ...(await mdocRows())];

export default bench;
