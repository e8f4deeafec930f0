import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey as JoseKey, type JWK } from 'jose';
import { webcrypto } from 'node:crypto';

/**
 * A test trust domain: a root CA, an intermediate CA that issues the SVIDs (so chains have two
 * certificates, as with an upstream authority), and a JWT signing key. Everything is generated with
 * @peculiar/x509 and jose on WebCrypto; nothing is hand-made.
 */
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface IssuedSvid {
  spiffeId: string;
  /** Leaf first, then the intermediate. */
  chain: Uint8Array[];
  /** PKCS#8 DER. */
  key: Uint8Array;
  leaf: x509.X509Certificate;
}

export interface LeafOptions {
  notBefore?: Date;
  notAfter?: Date;
  /** URI SANs (default: the SPIFFE ID); `[]` for none. */
  uris?: string[];
  dns?: string[];
  ca?: boolean;
  keyUsage?: number;
}

const der = (cert: x509.X509Certificate) => new Uint8Array(cert.rawData);

export class TestTrustDomain {
  private constructor(
    readonly trustDomain: string,
    readonly root: x509.X509Certificate,
    private readonly rootKeys: CryptoKeyPair,
    readonly intermediate: x509.X509Certificate,
    private readonly intermediateKeys: CryptoKeyPair,
    readonly jwtKid: string,
    private readonly jwtPrivate: JoseKey,
    readonly jwtPublic: JWK,
  ) {}

  static async create(trustDomain: string): Promise<TestTrustDomain> {
    const now = Date.now();
    const rootKeys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
    const root = await x509.X509CertificateGenerator.createSelfSigned({
      name: `C=US, O=${trustDomain} test root`,
      keys: rootKeys,
      signingAlgorithm: EC,
      notBefore: new Date(now - 3600_000),
      notAfter: new Date(now + 7 * 86400_000),
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: `spiffe://${trustDomain}` }]),
        await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
      ],
    });
    const intermediateKeys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
    const intermediate = await x509.X509CertificateGenerator.create({
      subject: `C=US, O=${trustDomain} test intermediate`,
      issuer: root.subject,
      publicKey: intermediateKeys.publicKey,
      signingKey: rootKeys.privateKey,
      signingAlgorithm: EC,
      notBefore: new Date(now - 3600_000),
      notAfter: new Date(now + 2 * 86400_000),
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: `spiffe://${trustDomain}` }]),
        await x509.SubjectKeyIdentifierExtension.create(intermediateKeys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey),
      ],
    });
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwtKid = `${trustDomain}-jwt-1`;
    const jwtPublic = { ...(await exportJWK(publicKey)), kid: jwtKid, alg: 'ES256' };
    return new TestTrustDomain(
      trustDomain,
      root,
      rootKeys,
      intermediate,
      intermediateKeys,
      jwtKid,
      privateKey,
      jwtPublic,
    );
  }

  /** The X.509 bundle: the root only. */
  bundle(): Uint8Array[] {
    return [der(this.root)];
  }

  /** The JWT bundle as the Workload API sends it (a JWK set). */
  jwks(): { keys: JWK[] } {
    return { keys: [this.jwtPublic] };
  }

  /** An X.509-SVID (or, with options, something that only looks like one). */
  async issue(spiffeId: string, options: LeafOptions = {}): Promise<IssuedSvid> {
    const now = Date.now();
    const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
    const names: x509.JsonGeneralName[] = [
      ...(options.uris ?? [spiffeId]).map((value) => ({ type: 'url' as const, value })),
      ...(options.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ];
    const leaf = await x509.X509CertificateGenerator.create({
      subject: `C=US, O=SPIRE, CN=${spiffeId.replace(/^spiffe:\/\//, '').slice(0, 60)}`,
      issuer: this.intermediate.subject,
      publicKey: keys.publicKey,
      signingKey: this.intermediateKeys.privateKey,
      signingAlgorithm: EC,
      notBefore: options.notBefore ?? new Date(now - 60_000),
      notAfter: options.notAfter ?? new Date(now + 3600_000),
      extensions: [
        new x509.BasicConstraintsExtension(Boolean(options.ca), undefined, true),
        new x509.KeyUsagesExtension(
          options.keyUsage ??
            x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyAgreement,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
        await x509.AuthorityKeyIdentifierExtension.create(this.intermediateKeys.publicKey),
      ],
    });
    const key = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    return { spiffeId, chain: [der(leaf), der(this.intermediate)], key, leaf };
  }

  /** A JWT-SVID signed with the trust domain's JWT key. */
  signJwt(claims: {
    sub: string;
    aud: string | string[];
    exp: number;
    iat?: number;
    [k: string]: unknown;
  }): Promise<string> {
    const { sub, aud, exp, iat, ...rest } = claims;
    return new SignJWT(rest)
      .setProtectedHeader({ alg: 'ES256', kid: this.jwtKid, typ: 'JWT' })
      .setSubject(sub)
      .setAudience(aud)
      .setIssuedAt(iat ?? Math.floor(Date.now() / 1000))
      .setExpirationTime(exp)
      .sign(this.jwtPrivate);
  }
}

export const pem = (ders: Uint8Array[]) =>
  ders
    .map(
      (d) =>
        `-----BEGIN CERTIFICATE-----\n${Buffer.from(d)
          .toString('base64')
          .replace(/(.{64})/g, '$1\n')
          .replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`,
    )
    .join('');
