/**
 * Base58 with the Bitcoin alphabet (the `z` multibase of did:key and Data Integrity proofs).
 * Plain radix conversion, no cryptography: leading zero bytes map to leading '1's.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, BigInt(i)]));

export function base58btcEncode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  return '1'.repeat(zeros) + out;
}

export function base58btcDecode(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  let n = 0n;
  for (const c of text) {
    const v = INDEX.get(c);
    if (v === undefined) throw new Error(`not base58btc: unexpected character ${JSON.stringify(c)}`);
    n = n * 58n + v;
  }
  const body: number[] = [];
  while (n > 0n) {
    body.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return new Uint8Array([...new Array(zeros).fill(0), ...body]);
}

/** Multibase base58btc: the `z` prefix. */
export const multibaseEncode = (bytes: Uint8Array) => `z${base58btcEncode(bytes)}`;

export function multibaseDecode(text: string): Uint8Array {
  if (!text.startsWith('z')) throw new Error('only base58btc multibase (prefix "z") is supported');
  return base58btcDecode(text.slice(1));
}
