import type { PageDocument } from '../../../services/pages/document.ts';
import { h } from '../pages/blocks.ts';

export interface DcApiPageInput {
  transactionId: string;
  status: string;
  responseMode: string;
  digital: unknown;
  expectedOrigins: string[];
  responseUri: string;
  resultUri: string;
}

/** JSON inside a script element: `<` escaped, so no text of the request can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * `{base}/oid4vp/dc-api/{transaction_id}`: the page a person opens to present through the browser's
 * Digital Credentials API (OpenID4VP 1.0 Appendix A). It works as a plain page: the request, the
 * endpoint and the way to answer are all in it; the browser module adds the button that calls the API.
 */
export function dcApiPage(input: DcApiPageInput): PageDocument {
  const open = input.status === 'created';
  const request = { digital: input.digital, response_uri: input.responseUri, result_uri: input.resultUri };
  const body = JSON.stringify({ origin: input.expectedOrigins[0], data: { vp_token: { '<query id>': ['…'] } } });
  return {
    title: 'Present with the Digital Credentials API',
    noindex: true,
    blocks: [
      h(1, 'Present with the Digital Credentials API'),
      {
        kind: 'paragraph',
        inlines: [
          'The verifier asks for a presentation through the browser (',
          { code: input.responseMode },
          ', OpenID4VP 1.0 Appendix A). The browser asks a wallet on this device, or a phone by its own QR code, and hands the answer back to this page, which posts it to the verifier.',
        ],
      },
      open
        ? {
            kind: 'html',
            html: `<div data-dc-api><p role="status">This page needs its script to call the browser API; without it, use the request below.</p><button type="button" hidden>Present a credential</button><script type="application/json" id="dc-api-request">${scriptJson(request)}</script></div>`,
            markdown: [
              {
                kind: 'paragraph',
                inlines: ['In a browser, this page calls ', { code: 'navigator.credentials.get({digital})' }, '.'],
              },
            ],
          }
        : { kind: 'notice', tone: 'info', inlines: [`This request is ${input.status}: nothing more to present.`] },
      h(2, 'The request'),
      {
        kind: 'paragraph',
        inlines: ['The exact ', { code: 'digital' }, ' argument of ', { code: 'navigator.credentials.get' }, ':'],
      },
      { kind: 'code', lang: 'json', text: JSON.stringify(input.digital, null, 2) },
      {
        kind: 'paragraph',
        inlines: ['Accepted origins: ', ...input.expectedOrigins.flatMap((o, i) => [i ? ', ' : '', { code: o }])],
      },
      h(2, 'Answering without a browser'),
      {
        kind: 'paragraph',
        inlines: [
          'An agent hands the request to a wallet (the wallet harness: ',
          { code: 'POST {wallet}/api/dc-api/present {origin, requests}' },
          ') and posts what it returns, with the origin, to the verifier:',
        ],
      },
      {
        kind: 'code',
        lang: 'sh',
        text: `curl -s -X POST ${input.responseUri} -H 'content-type: application/json' -d '${body}'`,
      },
      { kind: 'paragraph', inlines: ['Then read the verdict: ', { link: input.resultUri, href: input.resultUri }] },
      {
        kind: 'notice',
        tone: 'info',
        inlines: [
          'No platform wallet runs in this sandbox: a real one needs a browser and device that have it. The wallet harness answers like one, headless.',
        ],
      },
    ],
  };
}
