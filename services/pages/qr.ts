import QRCode from 'qrcode';

/**
 * QR codes of handoff links (an `openid4vp://` request, an `openid-credential-offer://` offer), made
 * by the `qrcode` library: SVG for pages, PNG for `Accept: image/png`. Medium error correction (15%)
 * and a four-module quiet zone, as readers expect.
 */
const OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;

/** An SVG QR code; its title names the link for assistive technology. */
export async function qrSvg(link: string, label: string): Promise<string> {
  const svg = await QRCode.toString(link, { ...OPTIONS, type: 'svg' });
  const title = label.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return svg.replace('<svg ', `<svg role="img" aria-label="${title}" width="240" height="240" `);
}

/** A PNG QR code, 8 pixels per module. */
export function qrPng(link: string): Promise<Buffer> {
  return QRCode.toBuffer(link, { ...OPTIONS, type: 'png', scale: 8 });
}
