import { Tag } from 'cbor-x';

/**
 * A small strict CBOR decoder (RFC 8949 §3) for the codec's own reading. cbor-x keeps its tag
 * handlers in process-wide state, and libraries register their own there (@auth0/mdl and
 * @owf/mdoc turn tags 0, 24 and 1004 into their Date / DataItem / DateOnly classes), so what
 * cbor-x returns depends on what else the process has loaded. This decoder always returns the
 * same shapes: maps as Map, byte strings as Uint8Array, every tag as a cbor-x `Tag`, integers as
 * numbers (BigInt beyond 2^53). It refuses indefinite lengths, duplicate map keys, trailing bytes
 * and nesting deeper than 64. Encoding stays with cbor-x (see cbor.ts).
 */
const MAX_DEPTH = 64;
const utf8 = new TextDecoder('utf-8', { fatal: true });

class Reader {
  private pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get done() {
    return this.pos === this.bytes.length;
  }

  private take(n: number): Uint8Array {
    if (n > this.bytes.length - this.pos) throw new Error('CBOR input ends early');
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  private uint(info: number): number | bigint {
    if (info < 24) return info;
    const view = (n: number) => {
      const b = this.take(n);
      return new DataView(b.buffer, b.byteOffset, n);
    };
    if (info === 24) return this.take(1)[0];
    if (info === 25) return view(2).getUint16(0);
    if (info === 26) return view(4).getUint32(0);
    if (info === 27) {
      const v = view(8).getBigUint64(0);
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    throw new Error(
      info === 31 ? 'indefinite-length items are not supported' : `reserved additional information ${info}`,
    );
  }

  private length(info: number): number {
    const n = this.uint(info);
    if (typeof n === 'bigint' || n > this.bytes.length) throw new Error('CBOR length larger than the input');
    return n;
  }

  item(depth = 0): unknown {
    if (depth > MAX_DEPTH) throw new Error('CBOR nesting too deep');
    const initial = this.take(1)[0];
    const major = initial >> 5;
    const info = initial & 0x1f;
    switch (major) {
      case 0:
        return this.uint(info);
      case 1: {
        const n = this.uint(info);
        return typeof n === 'bigint' ? -1n - n : n + 1 > Number.MAX_SAFE_INTEGER ? -1n - BigInt(n) : -1 - n;
      }
      case 2:
        return new Uint8Array(this.take(this.length(info)));
      case 3:
        return utf8.decode(this.take(this.length(info)));
      case 4: {
        const n = this.length(info);
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(this.item(depth + 1));
        return out;
      }
      case 5: {
        const n = this.length(info);
        const out = new Map<unknown, unknown>();
        const seen = new Set<string>();
        for (let i = 0; i < n; i++) {
          const start = this.pos;
          const key = this.item(depth + 1);
          const keyBytes = Buffer.from(this.bytes.subarray(start, this.pos)).toString('hex');
          if (seen.has(keyBytes)) throw new Error('duplicate map key');
          seen.add(keyBytes);
          out.set(key, this.item(depth + 1));
        }
        return out;
      }
      case 6: {
        const tag = this.uint(info);
        return new Tag(this.item(depth + 1), Number(tag));
      }
      default:
        return this.simple(info);
    }
  }

  private simple(info: number): unknown {
    if (info === 20) return false;
    if (info === 21) return true;
    if (info === 22) return null;
    if (info === 23) return undefined;
    if (info === 25) {
      const b = this.take(2);
      const half = (b[0] << 8) | b[1];
      const exp = (half >> 10) & 0x1f;
      const mant = half & 0x3ff;
      const sign = half & 0x8000 ? -1 : 1;
      return (
        sign * (exp === 0 ? mant * 2 ** -24 : exp === 31 ? (mant ? NaN : Infinity) : (mant + 1024) * 2 ** (exp - 25))
      );
    }
    if (info === 26) {
      const b = this.take(4);
      return new DataView(b.buffer, b.byteOffset, 4).getFloat32(0);
    }
    if (info === 27) {
      const b = this.take(8);
      return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0);
    }
    throw new Error(`unsupported simple value ${info}`);
  }
}

/** Decodes exactly one CBOR data item; trailing bytes are an error. */
export function decodeStrict(bytes: Uint8Array): unknown {
  const reader = new Reader(bytes);
  const value = reader.item();
  if (!reader.done) throw new Error('trailing bytes after the CBOR item');
  return value;
}
