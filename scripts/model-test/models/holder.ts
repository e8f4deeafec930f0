import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Http } from '../http.ts';
import { expectAnswer } from '../model.ts';

/** A wallet's key: signs OpenID4VCI key proofs. */
export interface HolderKey {
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function holderKey(): Promise<HolderKey> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: await exportJWK(publicKey) };
}

/**
 * OpenID4VCI 1.0 §8.2.1.1: a key proof over a fresh c_nonce from the nonce endpoint (§7); `iss` is the
 * client the token was issued to, absent for an anonymous pre-authorized code.
 */
export async function keyProof(http: Http, key: HolderKey, clientId?: string): Promise<string> {
  const answer = await http.call('/oid4vci/nonce', { method: 'POST' });
  expectAnswer('POST /oid4vci/nonce', answer, 200);
  return new SignJWT({ nonce: answer.body.c_nonce, ...(clientId ? { iss: clientId } : {}) })
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: key.jwk })
    .setAudience(`${http.base}/oid4vci`)
    .setIssuedAt()
    .sign(key.privateKey);
}
