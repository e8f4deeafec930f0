import { createHmac } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { sameText } from '../crypto/compare.ts';
import { randomToken } from '../crypto/random.ts';
import { oauthError } from '../errors.ts';
import { NONCE_TTL_S } from './settings.ts';

/**
 * Single-use values that need no storage until they are spent (c_nonce, attestation_challenge):
 * `<exp>.<random>.<HMAC(purpose, exp.random)>` under a server secret, so any instance sharing the key
 * file can check them; spending records them once.
 */
export class StatelessValues {
  constructor(
    private readonly secret: Uint8Array,
    private readonly clock: Clock,
    private readonly useOnce: (purpose: string, value: string) => Promise<boolean>,
  ) {}

  private mac(purpose: string, body: string): string {
    return createHmac('sha256', this.secret).update(`${purpose}:${body}`).digest('base64url');
  }

  /** A fresh value for `purpose`, valid for NONCE_TTL_S. */
  issue(purpose: string): string {
    const body = `${Math.floor(this.clock.now() / 1000) + NONCE_TTL_S}.${randomToken(16)}`;
    return `${body}.${this.mac(purpose, body)}`;
  }

  /** Known (our HMAC for this purpose), not expired, and not used before: then spent; else `invalid_nonce`. */
  async spend(purpose: string, value: string): Promise<void> {
    const [exp, random, mac] = value.split('.');
    const invalid = (why: string) => oauthError('invalid_nonce', why);
    if (!mac || !sameText(mac, this.mac(purpose, `${exp}.${random}`)))
      throw invalid(`The ${purpose} value is not one this issuer gave out`);
    if (Number(exp) <= this.clock.now() / 1000) throw invalid(`The ${purpose} value has expired; get a new one`);
    if (!(await this.useOnce(purpose, value))) throw invalid(`The ${purpose} value was already used; get a new one`);
  }
}
