import { promisify } from 'node:util';
import { decrypt, encrypt } from 'xml-encryption';
import { ALG, NS } from './constants.ts';
import { onlyChild, parseXml, serializeXml } from './xml.ts';

const encryptAsync = promisify(encrypt);
const decryptAsync = promisify(decrypt);

/**
 * Encrypts an Assertion for an SP's encryption certificate (SAML core §2.3.4, XML Encryption 1.1):
 * AES-256-GCM content key, wrapped with RSA-OAEP; the result goes inside `saml:EncryptedAssertion`.
 */
export async function encryptAssertion(assertionXml: string, certificatePem: string): Promise<string> {
  const encrypted = await encryptAsync(assertionXml, {
    rsa_pub: certificatePem,
    pem: certificatePem,
    encryptionAlgorithm: ALG.aes256Gcm,
    keyEncryptionAlgorithm: ALG.rsaOaep,
    disallowEncryptionWithInsecureAlgorithm: true,
    warnInsecureAlgorithm: false,
  });
  return `<saml:EncryptedAssertion xmlns:saml="${NS.assertion}">${encrypted}</saml:EncryptedAssertion>`;
}

/** The decrypted Assertion of an `EncryptedAssertion`, parsed safely; throws when no key of ours opens it. */
export async function decryptAssertion(
  encryptedAssertion: Element,
  privateKeyPems: readonly string[],
): Promise<Element> {
  const data = onlyChild(encryptedAssertion, NS.xenc, 'EncryptedData');
  if (!data) throw new Error('The EncryptedAssertion has no EncryptedData');
  const xml = serializeXml(data);
  let lastError: unknown;
  for (const key of privateKeyPems) {
    try {
      const plain = await decryptAsync(xml, {
        key,
        disallowDecryptionWithInsecureAlgorithm: true,
        warnInsecureAlgorithm: false,
      });
      const assertion = parseXml(String(plain)).documentElement;
      if (assertion.namespaceURI !== NS.assertion || assertion.localName !== 'Assertion')
        throw new Error('The decrypted content is not an Assertion');
      return assertion;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error('The assertion could not be decrypted');
}
