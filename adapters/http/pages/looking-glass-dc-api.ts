import { invalidRequest, OAuthError } from '../../../services/errors.ts';
import type { LookingGlass } from '../../../services/lookingglass/service.ts';
import type { Block } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { h, p } from './blocks.ts';

type Decoded = Awaited<ReturnType<LookingGlass['decodeDcApi']>>;

/** The looking glass's Digital Credentials API form: the request, the answer, the origin. */
export function dcApiForm(request = '', response = '', origin = ''): Block {
  return {
    kind: 'html',
    html: `<h2 id="dc-api-form">Decode a Digital Credentials API exchange</h2><form method="post" action="/looking-glass#dc-api-form"><label for="dc-request">Request: the digital argument, or one {protocol, data} (JSON)</label><textarea id="dc-request" name="dc_request" spellcheck="false" autocomplete="off">${escapeHtml(request)}</textarea><label for="dc-response">Answer: what the browser returned, {protocol, data} or data (JSON, optional)</label><textarea id="dc-response" name="dc_response" spellcheck="false" autocomplete="off" class="short">${escapeHtml(response)}</textarea><label for="dc-origin">Origin the browser reported (optional)</label><input id="dc-origin" name="dc_origin" autocomplete="off" value="${escapeHtml(origin)}"><button type="submit">Decode the exchange</button></form>`,
    markdown: [
      h(2, 'Decode a Digital Credentials API exchange'),
      p(
        'Digital Credentials API exchanges: ',
        { code: 'POST /looking-glass' },
        ' with the form fields ',
        { code: 'dc_request' },
        ', ',
        { code: 'dc_response' },
        ' and ',
        { code: 'dc_origin' },
        ', or ',
        { code: 'POST /api/lookingglass/decode/dc-api' },
        ' with ',
        { code: '{request, response, origin}' },
      ),
    ],
  };
}

const parsed = (text: string, name: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest(`${name} is not JSON`);
  }
};
const verdict = (value: unknown) => (value === true ? 'yes' : value === false ? 'no' : 'not checked');

/** A decoded exchange as the page shows it: the request, the origin, each presentation's binding, the transactions. */
export async function dcApiBlocks(
  glass: LookingGlass,
  request: string,
  response: string,
  origin: string,
): Promise<Block[]> {
  const blocks: Block[] = [h(2, 'Digital Credentials API exchange')];
  let d: Decoded;
  try {
    d = await glass.decodeDcApi({
      request: parsed(request, 'The request'),
      ...(response.trim() ? { response: parsed(response, 'The answer') } : {}),
      ...(origin.trim() ? { origin: origin.trim() } : {}),
    });
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return [...blocks, { kind: 'notice', tone: 'error', inlines: [error.description] }];
  }
  const r = d.request;
  blocks.push(
    p('Protocol: ', { code: String(r.protocol) }, `, ${r.signed ? 'signed' : 'unsigned'}, response mode `, {
      code: String(r.response_mode),
    }),
  );
  if (r.signature)
    blocks.push({
      kind: 'notice',
      tone: r.signature.verified ? 'ok' : 'warning',
      inlines: [
        `Request signature: ${r.signature.verified ? 'verified' : 'not verified'} — ${String(r.signature.detail)}`,
      ],
    });
  if (d.origin !== undefined)
    blocks.push({
      kind: 'notice',
      tone: d.origin_expected === false ? 'error' : 'info',
      inlines: [
        'Origin ',
        { code: String(d.origin) },
        `: expected ${verdict(d.origin_expected)}; the audience is `,
        { code: String(d.audience) },
      ],
    });
  for (const t of r.transaction_data ?? []) blocks.push(p(`Transaction ${t.index}: ${t.summary}`));
  for (const pr of d.response?.presentations ?? [])
    blocks.push(
      p(
        { code: `${String(pr.credential_query_id)}[${String(pr.index)}]` },
        ` ${String(pr.format)}: `,
        pr.handover
          ? `handover ${String(pr.handover.type)} ${String(pr.handover.hash).slice(0, 16)}…, device signature ${pr.device_signature?.verified ? 'verified' : `not verified (${String(pr.device_signature?.detail)})`}`
          : `aud ${JSON.stringify(pr.aud)} is the origin: ${verdict(pr.aud_is_origin)}; nonce matches: ${verdict(pr.nonce_matches)}`,
      ),
    );
  if (d.response?.encrypted) blocks.push(p(String(d.response.encrypted.detail)));
  if (d.transactions)
    blocks.push({
      kind: 'notice',
      tone: d.transactions.verdict === 'bound' ? 'ok' : 'error',
      inlines: [`Transaction data: ${String(d.transactions.verdict)} — ${String(d.transactions.detail)}`],
    });
  blocks.push({ kind: 'code', lang: 'json', text: JSON.stringify(d, null, 2) });
  return blocks;
}
