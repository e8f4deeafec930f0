import { createHash } from 'node:crypto';

/**
 * Framing of DER certificates as the Workload API carries them: several certificates concatenated
 * in one byte string (the SVID chain, a bundle). Only the outer TLV lengths are read here; the
 * certificates themselves are parsed by pkijs and node:crypto.
 */
export function splitDer(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let i = 0;
  while (i < bytes.length) {
    if (bytes[i] !== 0x30) throw new Error(`not a DER SEQUENCE at byte ${i}`);
    if (i + 2 > bytes.length) throw new Error('truncated DER header');
    let length = bytes[i + 1];
    let header = 2;
    if (length & 0x80) {
      const n = length & 0x7f;
      if (n === 0 || n > 4 || i + 2 + n > bytes.length) throw new Error('unsupported DER length');
      length = 0;
      for (let k = 0; k < n; k++) length = length * 256 + bytes[i + 2 + k];
      header += n;
    }
    const end = i + header + length;
    if (end > bytes.length) throw new Error('truncated DER certificate');
    out.push(bytes.subarray(i, end));
    i = end;
  }
  return out;
}

/** One certificate as a PEM block. */
function certificatePem(der: Uint8Array): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

export function certificatesPem(ders: readonly Uint8Array[]): string {
  return ders.map(certificatePem).join('');
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** The CERTIFICATE blocks of a PEM text, as DER; other block types are reported by label. */
export function pemCertificates(text: string): { certificates: Uint8Array[]; otherBlocks: string[] } {
  const certificates: Uint8Array[] = [];
  const otherBlocks: string[] = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    if (m[1] !== 'CERTIFICATE') {
      otherBlocks.push(m[1]);
      continue;
    }
    const b64 = m[2].replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw new Error('a CERTIFICATE block is not base64');
    certificates.push(new Uint8Array(Buffer.from(b64, 'base64')));
  }
  return { certificates, otherBlocks };
}

/** SHA-256 fingerprint of a certificate, lower-case hex without separators. */
export function fingerprint256(der: Uint8Array): string {
  return createHash('sha256').update(der).digest('hex');
}
