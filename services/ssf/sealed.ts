import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * A receiver's push `authorization_header` is a secret the transmitter must send back: it is kept
 * sealed (AES-256-GCM under a server secret), never in clear in the log.
 */
export class Sealer {
  constructor(private readonly key: Uint8Array) {
    if (key.length !== 32) throw new Error('the sealing key is 256 bits');
  }

  seal(value: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
  }

  open(sealed: string): string {
    const [iv, body, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}
