import type { Block, PageDocument } from '../pages/document.ts';
import endpoints from './endpoints.json' with { type: 'json' };

/**
 * The wallet origin's discovery documents (spec section 4 "Wallet harness", decisions section 10),
 * built for the origin the request reached (directly, or behind the main origin's `/wallet-harness/`).
 */
export interface WalletEndpoint {
  method: 'GET' | 'POST';
  path: string;
  purpose: string;
  /** A runnable curl command; `$W` is the wallet origin, `$S` a session id. */
  curl: string;
}

const SESSION = `-H "X-Wallet-Session: $S"`;
const JSON_BODY = `-H 'content-type: application/json'`;

/** The wallet's API, one recipe per endpoint (data: `endpoints.json`, with the session and JSON headers filled in). */
export const WALLET_ENDPOINTS: WalletEndpoint[] = (endpoints as WalletEndpoint[]).map((e) => ({
  ...e,
  curl: e.curl.replaceAll('{{session}}', SESSION).replaceAll('{{json}}', JSON_BODY),
}));

/** `/llms.txt`: what the wallet is and where an agent starts. */
export function walletLlmsTxt(origin: string, main: string): string {
  return `# Portico wallet harness

> A headless wallet for the OpenID credential protocols: OID4VCI issuance and OID4VP presentation from the wallet's side, driven over a JSON API. Everything is demo data; keys and credentials live in memory per session.

Start here:

- [API recipes](${origin}/llms-full.txt): every endpoint with a runnable curl example and the exact headers
- [Agent skill](${origin}/.well-known/agent-skills/use-wallet-harness/SKILL.md): how to drive the wallet step by step
- [API catalog](${origin}/.well-known/api-catalog): RFC 9727 linkset of this API
- [Health](${origin}/health)

How sessions work: send \`X-Wallet-Session: <id>\` (1 to 128 of A-Z a-z 0-9 . _ -) on every call, or let the first call mint one (\`ws_...\`, echoed in the response header and set as the \`wallet_session\` cookie). Sessions live in memory for WALLET_SESSION_TTL, renewed by every call; nothing is shared between sessions except the mdoc device key.

Counterparty: the main origin ${main} (its OID4VCI issuer and OID4VP verifier).

Where offers and requests come from: a credential offer is made at the issuer, \`POST ${main}/oid4vci/offers\` (its \`offer_url\` goes to \`POST /api/import\`, or let \`POST /api/issue\` do both); a presentation request at the verifier, \`POST ${main}/oid4vp/request/create\` (its \`authorization_request_uri\` goes to \`POST /api/resolve\` or \`POST /submit\`). The recipes show both end to end.
`;
}

/** The recipes (`/llms-full.txt`), as one document model; `main` is the counterparty origin (issuer and verifier). */
export function walletRecipes(origin: string, main: string): PageDocument {
  const blocks: Block[] = [
    { kind: 'heading', level: 1, text: 'Wallet harness API recipes' },
    {
      kind: 'paragraph',
      inlines: [
        'Set ',
        { code: `W=${origin}` },
        ' and a session id, for example ',
        { code: 'S=my-run-1' },
        '. Every call takes ',
        { code: 'X-Wallet-Session: $S' },
        '; JSON bodies take ',
        { code: 'content-type: application/json' },
        ' and at most 64 KiB. Errors are ',
        { code: '{error, error_description}' },
        '. The JSON API is rate limited per client address.',
      ],
    },
    { kind: 'code', lang: 'sh', text: `W=${origin}\nS=my-run-1` },
  ];
  for (const e of WALLET_ENDPOINTS) {
    blocks.push({ kind: 'heading', level: 2, text: `${e.method} ${e.path}` });
    blocks.push({ kind: 'paragraph', inlines: [`${e.purpose}.`] });
    blocks.push({ kind: 'code', lang: 'sh', text: e.curl });
  }
  blocks.push(
    { kind: 'heading', level: 2, text: 'Where offers and presentation requests come from' },
    {
      kind: 'paragraph',
      inlines: ['A credential offer is made at the issuer of the main origin, and handed to this wallet:'],
    },
    {
      kind: 'code',
      lang: 'sh',
      text: `M=${main}\nOFFER=$(curl -s -X POST $M/oid4vci/offers ${JSON_BODY} -d '{"credential_configuration_ids":["UniversityDegreeCredential"],"tx_code":true}')\ncurl -s -X POST $W/api/import ${SESSION} ${JSON_BODY} \\\n  -d "{\\"offer\\":\\"$(echo "$OFFER" | jq -r .offer_url)\\",\\"tx_code\\":\\"$(echo "$OFFER" | jq -r .tx_code_value)\\"}"`,
    },
    {
      kind: 'paragraph',
      inlines: [
        "A presentation request is made at the verifier; the wallet answers it, and the verifier's ",
        { code: 'result_uri' },
        ' (named by its ',
        { code: 'transaction_id' },
        ', never the request id) tells the verdict:',
      ],
    },
    {
      kind: 'code',
      lang: 'sh',
      text: `REQ=$(curl -s -X POST $M/oid4vp/request/create ${JSON_BODY} -d '{"dcql_query":{"credentials":[{"id":"degree","format":"dc+sd-jwt","claims":[{"path":["degree"]}]}]}}')\ncurl -s -X POST $W/submit ${SESSION} ${JSON_BODY} -d "{\\"uri\\":\\"$(echo "$REQ" | jq -r .authorization_request_uri)\\"}"\ncurl -s "$(echo "$REQ" | jq -r .result_uri)"`,
    },
    {
      kind: 'paragraph',
      inlines: [
        "A request for the browser's Digital Credentials API (",
        { code: 'response_mode: dc_api' },
        ' or ',
        { code: 'dc_api.jwt' },
        "): this wallet answers as the platform wallet would, and the verifier's page posts the answer with its origin:",
      ],
    },
    {
      kind: 'code',
      lang: 'sh',
      text: `O=$(echo $M | sed -E 's#^(https?://[^/]+).*#\\1#')\nREQ=$(curl -s -X POST $M/oid4vp/request/create ${JSON_BODY} -d '{"response_mode":"dc_api","dcql_query":{"credentials":[{"id":"degree","format":"dc+sd-jwt","claims":[{"path":["degree"]}]}]}}')\nANS=$(curl -s -X POST $W/api/dc-api/present ${SESSION} ${JSON_BODY} -d "{\\"origin\\":\\"$O\\",\\"requests\\":$(echo "$REQ" | jq -c .digital.requests)}")\ncurl -s -X POST "$(echo "$REQ" | jq -r .dc_api_response_uri)" ${JSON_BODY} -d "{\\"origin\\":\\"$O\\",\\"data\\":$(echo "$ANS" | jq -c .data)}"\ncurl -s "$(echo "$REQ" | jq -r .result_uri)"`,
    },
    {
      kind: 'paragraph',
      inlines: [
        'Transaction data (a payment, a document to sign) comes in the request; ',
        { code: 'POST /api/resolve' },
        ' lists each entry in words, and presenting binds its hash in the KB-JWT. Every field and allowed value of both creation calls is in ',
        { code: `${main}/openapi.json` },
        '.',
      ],
    },
    { kind: 'heading', level: 2, text: 'Headers' },
    {
      kind: 'list',
      items: [
        [
          { code: 'X-Wallet-Session' },
          ': the session; echoed on every response. Without it the wallet mints one (strict isolation) and sets the ',
          { code: 'wallet_session' },
          ' cookie.',
        ],
        [
          { code: 'Origin' },
          ': browsers on an allowed origin (WALLET_ALLOWED_CORS_ORIGINS) get CORS headers; ',
          { code: 'X-Wallet-Session' },
          ' is allowed and exposed.',
        ],
      ],
    },
    { kind: 'heading', level: 2, text: 'Outbound requests' },
    {
      kind: 'paragraph',
      inlines: [
        'The wallet fetches only through its guard: the configured target and issuer pass; anything else must be https, without userinfo, with a public host whose every address is public, at most two redirects, 10 s and 1 MiB. Refusals are ',
        { code: '400 destination_not_allowed' },
        ' (nothing sent) or ',
        { code: '403 external_verifiers_disabled' },
        '; upstream failures ',
        { code: '502 upstream_error' },
        ' with the upstream status, never its body.',
      ],
    },
  );
  return {
    title: 'Wallet harness API recipes',
    description: 'Every wallet endpoint with a runnable curl example',
    blocks,
  };
}

/** RFC 9727 linkset of the wallet API. */
export function walletApiCatalog(origin: string) {
  return {
    linkset: [
      { anchor: `${origin}/.well-known/api-catalog`, item: [{ href: `${origin}/api` }] },
      {
        anchor: `${origin}/api`,
        'service-doc': [
          { href: `${origin}/llms-full.txt`, type: 'text/markdown' },
          { href: `${origin}/.well-known/agent-skills/use-wallet-harness/SKILL.md`, type: 'text/markdown' },
        ],
        status: [{ href: `${origin}/health`, type: 'application/json' }],
      },
    ],
  };
}

export const walletRobotsTxt = () =>
  [
    '# Portico wallet harness: demo data only.',
    'User-agent: *',
    'Content-Signal: search=yes, ai-input=yes, ai-train=no',
    'Allow: /',
    'Disallow: /consent/',
    'Disallow: /api/',
    '',
  ].join('\n');
