import { importJWK, type JWK } from 'jose';
import type { Clock } from '../clock.ts';
import type { KeyRing } from '../keys.ts';
import { decodeCredential } from './decode-credential.ts';
import { decodeJwt, type KnownIssuerKeys } from './decode-jwt.ts';
import type { StatusChecker } from '../status/check.ts';
import { currentStatus, referencesOf } from './credential-status.ts';
import { decodeStatusList } from './decode-status-list.ts';
import { decodeDcApi } from './decode-dc-api.ts';

/** Key sets of this origin's issuers whose tokens the looking glass verifies without being given keys. */
const KNOWN_KEY_SETS = ['agentauth', 'oidc', 'oauth2', 'oid4vci'];

/** The `iss` values of this origin's issuers and their key sets. */
export const ourIssuers = (baseUrl: string): ReadonlyMap<string, string> =>
  new Map([
    [`${baseUrl}/agentauth`, 'agentauth'],
    [baseUrl, 'oidc'],
    [`${baseUrl}/oauth2`, 'oauth2'],
    [`${baseUrl}/oid4vci`, 'oid4vci'],
  ]);

/** Decodes and explains tokens and credentials (POST /api/lookingglass/*, the MCP decode tool). */
export class LookingGlass {
  constructor(
    private readonly keys: KeyRing,
    private readonly clock: Clock,
    /** Our issuers by `iss` value, each with its key set (e.g. `{base}/agentauth` -> `agentauth`). */
    private readonly issuers: ReadonlyMap<string, string> = new Map(),
    /** Resolves credentials' status references (docs/status.md); none: status is not shown. */
    private readonly status?: StatusChecker,
  ) {}

  /** CA certificates of this origin (the verifier's CA, the IACA) that an `x5c` chain may lead to. */
  private readonly certificateAuthorities: string[] = [];

  /** Lets tokens whose `x5c` chains to this CA be `verified` (each part of the origin adds its own CA). */
  trustCertificateAuthority(pem: string): void {
    if (!this.certificateAuthorities.includes(pem)) this.certificateAuthorities.push(pem);
  }

  private readonly imported = new Map<string, Promise<{ set: string; key: CryptoKey | Uint8Array } | undefined>>();

  private known(): KnownIssuerKeys {
    return {
      byKid: (kid, alg) => {
        const id = `${String(kid)}:${alg}`;
        let found = this.imported.get(id);
        if (!found) {
          found = this.importKey(kid, alg).catch(() => undefined);
          this.imported.set(id, found);
          // Only our own keys stay cached; unknown kids (any caller can send them) are not kept.
          void found.then((hit) => hit || this.imported.delete(id));
        }
        return found;
      },
      keySetOf: (iss) => (typeof iss === 'string' ? this.issuers.get(iss) : undefined),
      trustAnchorsPem: () => this.certificateAuthorities,
      nowS: Math.floor(this.clock.now() / 1000),
    };
  }

  private async importKey(kid: unknown, alg: string) {
    for (const set of KNOWN_KEY_SETS) {
      const jwk = this.keys.jwks(set).keys.find((k) => k.kid === kid);
      if (jwk && (!jwk.alg || jwk.alg === alg)) return { set, key: await importJWK(jwk, alg) };
    }
    return undefined;
  }

  decodeJwt(token: string, jwks?: { keys: JWK[] }) {
    return decodeJwt(token, { jwks, known: this.known(), nowMs: this.clock.now() });
  }

  /** `jwksSource` names where `jwks` came from when the caller did not paste it (the page: our issuer's keys). */
  async decodeCredential(credential: unknown, jwks?: { keys: JWK[] }, jwksSource?: string) {
    const decoded = (await decodeCredential(credential, {
      jwks,
      ...(jwksSource ? { jwksSource } : {}),
      known: this.known(),
      nowMs: this.clock.now(),
    })) as Record<string, unknown>;
    const references = referencesOf(credential, decoded);
    if (!this.status || (Array.isArray(references) && references.length === 0)) return decoded;
    return { ...decoded, status: await currentStatus(references, this.status) };
  }

  /** A Digital Credentials API request and answer (OpenID4VP 1.0 Appendix A), with the origin. */
  decodeDcApi(input: { request: unknown; response?: unknown; origin?: unknown }) {
    return decodeDcApi(input, {
      decodeJwt: (token) => this.decodeJwt(token),
      trustAnchorsPem: this.certificateAuthorities,
      nowS: Math.floor(this.clock.now() / 1000),
    });
  }

  /** A Status List Token (JWT, CWT) or W3C status list credential: bits, size, counts, the value at `idx`. */
  decodeStatusList(token: string, idx?: number, jwks?: { keys: JWK[] }) {
    return decodeStatusList(token, { jwks, known: this.known(), nowMs: this.clock.now(), idx });
  }
}
