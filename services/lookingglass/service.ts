import type { JWK } from 'jose';
import type { Clock } from '../clock.ts';
import type { KeyRing } from '../keys.ts';
import { decodeCredential } from './decode-credential.ts';
import { decodeJwt, type KnownIssuerKeys } from './decode-jwt.ts';

/** Key sets of this origin's issuers whose tokens the looking glass verifies without being given keys. */
export const KNOWN_KEY_SETS = ['agentauth', 'oidc', 'oauth2'];

/** Decodes and explains tokens and credentials (POST /api/lookingglass/*, the MCP decode tool). */
export class LookingGlass {
  constructor(
    private readonly keys: KeyRing,
    private readonly clock: Clock,
  ) {}

  private known(): KnownIssuerKeys {
    return { sets: KNOWN_KEY_SETS.map((name) => ({ name, keys: this.keys.jwks(name).keys })) };
  }

  decodeJwt(token: string, jwks?: { keys: JWK[] }) {
    return decodeJwt(token, { jwks, known: this.known(), nowMs: this.clock.now() });
  }

  decodeCredential(credential: unknown, jwks?: { keys: JWK[] }) {
    return decodeCredential(credential, { jwks, known: this.known(), nowMs: this.clock.now() });
  }
}
