import { hash } from 'node:crypto';

export const b64url = (bytes: Uint8Array | string) =>
  Buffer.from(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes).toString('base64url');
export const fromB64url = (text: string) => new Uint8Array(Buffer.from(text, 'base64url'));
export const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

export const sha256 = (data: Uint8Array | string) =>
  new Uint8Array(hash('sha256', typeof data === 'string' ? Buffer.from(data, 'ascii') : data, 'buffer'));

/** base64url(SHA-256(ASCII(text))), the digest SD-JWT puts in `_sd` and `sd_hash`, without intermediate copies. */
export const sha256Base64url = (text: string) => hash('sha256', Buffer.from(text, 'ascii'), 'base64url');

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))));
}
