import { isJsonObject, objectOf, arrayOf, memberAt, type JsonObject } from '../../untrusted/json.ts';
import { CompactEncrypt, compactDecrypt, generateKeyPair, exportJWK, importJWK, type JWK } from 'jose';
import { UpstreamError } from '../../outbound.ts';
import type { IssuerView } from './discovery.ts';
import { expectOk, type IssuerWire, type WireResponse } from './wire.ts';

/** The keys of an encrypted credential exchange: the issuer's for the request, the wallet's one-time key for the response. */
export interface CredentialEncryption {
  request?: { jwk: JWK; enc: string };
  response?: { publicJwk: JWK; privateKey: CryptoKey; enc: string };
}

/** Behaviours 6 and 7: encrypt the request when the issuer requires it; ask for an encrypted response when required or on the HAIP path. */
export async function credentialEncryption(view: IssuerView, haipEnabled: boolean): Promise<CredentialEncryption> {
  const requestEnc = objectOf(view.metadata.credential_request_encryption);
  const responseEnc = objectOf(view.metadata.credential_response_encryption);
  const pickEnc = (values: unknown) => (Array.isArray(values) && values.includes('A256GCM') ? 'A256GCM' : 'A128GCM');
  const out: CredentialEncryption = {};
  if (requestEnc?.encryption_required === true) {
    const jwk: JWK | undefined = arrayOf(memberAt(requestEnc, 'jwks', 'keys'))
      .filter(isJsonObject)
      .find((k) => k.alg === 'ECDH-ES' || k.use === 'enc');
    if (!jwk) throw new UpstreamError('The issuer requires encrypted requests but publishes no ECDH-ES key');
    out.request = { jwk, enc: pickEnc(requestEnc.enc_values_supported) };
  }
  if (responseEnc && (responseEnc.encryption_required === true || (haipEnabled && out.request))) {
    const { publicKey, privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
    out.response = {
      publicJwk: { ...(await exportJWK(publicKey)), alg: 'ECDH-ES', use: 'enc' },
      privateKey: privateKey as CryptoKey,
      enc: pickEnc(responseEnc.enc_values_supported),
    };
  }
  return out;
}

/** One credential or deferred request, encrypted and decrypted as negotiated (behaviours 6 and 7). */
export async function credentialRequest(
  wire: IssuerWire,
  endpoint: string,
  body: Record<string, unknown>,
  accessToken: { value: string; type: string },
  encryption: CredentialEncryption,
  step: 'credential' | 'deferred',
): Promise<{ status: number; body: JsonObject }> {
  let jwe: string | undefined;
  if (encryption.request) {
    jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(body)))
      .setProtectedHeader({
        alg: 'ECDH-ES',
        enc: encryption.request.enc as 'A128GCM',
        ...(encryption.request.jwk.kid ? { kid: encryption.request.jwk.kid } : {}),
      })
      .encrypt(await importJWK(encryption.request.jwk, 'ECDH-ES'));
  }
  const response: WireResponse = await wire.call(
    step,
    endpoint,
    jwe ? { jwe, accessToken } : { json: body, accessToken },
    { side: 'rs' },
  );
  if (response.status !== 200 && response.status !== 202)
    expectOk(response, step === 'credential' ? 'The credential endpoint' : 'The deferred credential endpoint');
  if (/application\/jwt/.test(response.headers['content-type'] ?? '')) {
    if (!encryption.response)
      throw new UpstreamError('The issuer encrypted a response the wallet did not ask to be encrypted');
    try {
      const { plaintext } = await compactDecrypt(response.text.trim(), encryption.response.privateKey, {
        keyManagementAlgorithms: ['ECDH-ES'],
      });
      return {
        status: response.status,
        body: JSON.parse(new TextDecoder().decode(plaintext)) as JsonObject,
      };
    } catch {
      throw new UpstreamError('The encrypted credential response does not decrypt with the wallet key');
    }
  }
  if (!response.json) throw new UpstreamError(`The ${step} endpoint did not answer JSON`, response.status);
  return { status: response.status, body: response.json };
}
