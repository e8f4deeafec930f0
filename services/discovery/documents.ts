/** The discovery documents of the main origin (spec section 4 "Discovery surfaces"). */

export interface IndexablePage {
  path: string;
  title: string;
}

/** RFC 9727 API catalog as an RFC 9264 linkset. */
export function apiCatalog(base: string) {
  const api = (anchor: string, desc: string, doc: string, status?: string) => ({
    anchor,
    'service-desc': [{ href: desc, type: 'application/openapi+json' }],
    'service-doc': [{ href: doc, type: 'text/html' }],
    ...(status ? { status: [{ href: status, type: 'application/json' }] } : {}),
  });
  return {
    linkset: [
      {
        anchor: `${base}/.well-known/api-catalog`,
        item: [
          { href: `${base}/api` },
          { href: `${base}/oauth2` },
          { href: `${base}/agentauth` },
          { href: `${base}/mcp` },
        ],
      },
      api(`${base}/api`, `${base}/openapi.json`, `${base}/docs/api`, `${base}/health`),
      {
        ...api(`${base}/oauth2`, `${base}/openapi.json`, `${base}/docs/api`),
        'service-meta': [{ href: `${base}/.well-known/oauth-authorization-server/oauth2`, type: 'application/json' }],
      },
      {
        ...api(`${base}/agentauth`, `${base}/openapi.json`, `${base}/auth.md`),
        'service-meta': [
          { href: `${base}/.well-known/oauth-authorization-server/agentauth`, type: 'application/json' },
        ],
      },
      {
        anchor: `${base}/mcp`,
        'service-desc': [{ href: `${base}/mcp/server-card`, type: 'application/mcp-server-card+json' }],
        'service-doc': [{ href: `${base}/.well-known/agent-skills/use-mcp/SKILL.md`, type: 'text/markdown' }],
      },
    ],
  };
}

/** Content-Signal in every crawl-allowed group. */
export function robotsTxt(base: string): string {
  return [
    '# Portico: a sandbox for identity protocols. Everything here is demo data.',
    'User-agent: *',
    'Content-Signal: search=yes, ai-input=yes, ai-train=no',
    'Allow: /',
    'Disallow: /oauth2/interaction/',
    'Disallow: /oidc/interaction/',
    '',
    `Sitemap: ${base}/sitemap.xml`,
    '',
  ].join('\n');
}

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function sitemapXml(base: string, pages: IndexablePage[]): string {
  const urls = pages.map((p) => `  <url><loc>${escapeXml(base + p.path)}</loc></url>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
}

/** The extensions a deployment runs (decisions §11): the documents offer only what is served. */
export interface OfferedExtensions {
  dynamicClients: boolean;
  mcpUserEndpoint: boolean;
}

export function llmsTxt(
  base: string,
  wallet: string,
  pages: IndexablePage[],
  conformance: IndexablePage[],
  extensions: OfferedExtensions,
): string {
  const mcpLine = extensions.mcpUserEndpoint
    ? `- [MCP server card](${base}/mcp/server-card): read-only tools at ${base}/mcp, and ${base}/mcp/user behind OAuth (MCP authorization: a 401 naming [its resource metadata](${base}/.well-known/oauth-protected-resource/mcp/user), then PKCE with \`resource=${base}/mcp/user\`)`
    : `- [MCP server card](${base}/mcp/server-card): read-only tools at ${base}/mcp (protocol catalog, flow description, JWT decode)`;
  const clientLine = extensions.dynamicClients
    ? `- Your own OAuth client: \`POST ${base}/oauth2/register\` with \`{"redirect_uris": ["https://app.example/cb"]}\` (RFC 7591) answers \`201\` with \`client_id\`, \`client_secret\`, \`registration_access_token\` and \`registration_client_uri\` (RFC 7592: GET, PUT, DELETE). An \`https\` URL serving a client metadata document also works as a \`client_id\`. Unused clients lapse after 24 hours. PAR is at \`/oauth2/par\` and \`/oidc/par\`; \`resource\` binds the token's \`aud\`.`
    : `- OAuth clients: the pre-registered demo clients at \`GET ${base}/oauth2/demo/clients\`. PAR is at \`/oauth2/par\` and \`/oidc/par\`; \`resource\` binds the token's \`aud\`.`;
  const list = (items: IndexablePage[]) => items.map((p) => `- [${p.title}](${base}${p.path})`).join('\n');
  return `# Portico

> A live sandbox where agents and API clients run real authentication and identity protocols (OAuth 2.0, OpenID Connect, agent self-registration, and more) on demo data, and inspect every token and exchange. Every credential here is public and valid nowhere else.

## Start here

- [Agent auth guide](${base}/auth.md): register without an API key, get a token, be claimed by a person
- [Agent skills](${base}/.well-known/agent-skills/index.json): recipes for the catalog, flows, decoding, MCP
- [Service index](${base}/api): every API endpoint
- [OpenAPI contract](${base}/openapi.json) and [API reference](${base}/docs/api)
${mcpLine}
- [Wallet harness](${wallet}/llms.txt): OID4VCI and OID4VP from the wallet side

## Where credential offers and presentation requests come from

- A credential offer: \`POST ${base}/oid4vci/offers\` with \`{"credential_configuration_ids": ["UniversityDegreeCredential"], "tx_code": true}\` answers \`201\` with \`offer_url\` (\`openid-credential-offer://…\`), \`pre_authorized_code\`, \`tx_code_value\` and \`status_uri\`. Hand \`offer_url\` to a wallet, such as \`POST ${wallet}/api/import\` with \`{"offer": "<offer_url>", "tx_code": "<tx_code_value>"}\`. Configurations are listed in [the issuer metadata](${base}/.well-known/openid-credential-issuer/oid4vci).
- A presentation request: \`POST ${base}/oid4vp/request/create\` with \`{"dcql_query": {"credentials": [{"id": "degree", "format": "dc+sd-jwt", "claims": [{"path": ["degree"]}]}]}}\` answers \`201\` with \`authorization_request_uri\` (\`openid4vp://…\`) and \`result_uri\`. Hand the URI to a wallet, such as \`POST ${wallet}/submit\` with \`{"uri": "<authorization_request_uri>"}\`, then read \`result_uri\` (it names the \`transaction_id\`; the request id alone reads nothing).
- Presentations through the browser's Digital Credentials API: create with \`"response_mode": "dc_api"\` (or \`"dc_api.jwt"\`, signed with \`expected_origins\`); the answer carries \`digital\` (the argument of \`navigator.credentials.get\`) and \`dc_api_page\`. A wallet answers \`{origin, data}\` (the wallet harness: \`POST ${wallet}/api/dc-api/present\`), posted to \`dc_api_response_uri\`. Transaction data (OpenID4VP §8.4): add \`"transaction_data": [{"type": "urn:portico:transaction-data:payment-confirmation", "credential_ids": ["degree"], "amount": "42.50", "currency": "EUR", "payee": "Demo Shop"}]\`; the KB-JWT must bind its hash. A request's or an offer's own URL answers its QR code with \`Accept: image/png\`.
- Flows against your own authorization server: add \`"target": {"issuer": "https://as.example", "client_id": "…", "client_secret": "…"}\` to a run of an OAuth 2.0 flow. This deployment's own origin is always a target; a server on your machine (\`http://127.0.0.1:PORT\`, \`http://localhost:PORT\`) needs Portico started with \`OUTBOUND_ALLOW_LOOPBACK=true\` (a test hook).
- Credential status: every credential issued carries a status reference. \`POST ${base}/oid4vci/offers/<offer_id>/credentials/<n>/status\` with \`Authorization: Bearer <status_token>\` (the offer-creation answer gives it to the creator alone) and \`{"status": "suspended"}\` (or \`valid\`, \`revoked\`; revoked is final) changes it; the offer's \`status_uri\` lists its credentials and their \`status_list\`. Lists are at \`${base}/oid4vci/status-lists/<list_id>\` (JWT; CWT with \`Accept: application/statuslist+cwt\`); the verifier fails a revoked credential with \`credential_revoked\` once its cached list (300 s) is renewed; decode a list with \`POST ${base}/api/lookingglass/decode/status-list?idx=<n>\`.
- Shared Signals (SSF 1.0, CAEP, RISC): the transmitter's metadata is at [/.well-known/ssf-configuration](${base}/.well-known/ssf-configuration). With a \`client_credentials\` token of \`${base}/oauth2/token\` (scope \`ssf\`, e.g. the demo \`machine-client\`), \`POST ${base}/ssf/streams\` makes a stream, \`POST ${base}/ssf/subjects:add\` adds a subject, \`POST ${base}/ssf/events\` emits any CAEP or RISC event, and \`POST ${base}/ssf/poll/<stream_id>\` delivers SETs until acknowledged (or push them to \`POST ${base}/ssf/receivers\`, a receiver you can read). The service signals agent and refresh-token revocations and credential status changes by itself. See the [use-shared-signals skill](${base}/.well-known/agent-skills/use-shared-signals/SKILL.md).
- SCIM 2.0 (RFC 7643, RFC 7644, RFC 9865): a service provider at \`${base}/scim/v2\` (discovery at [/scim/v2/ServiceProviderConfig](${base}/scim/v2/ServiceProviderConfig)). With a \`client_credentials\` token of \`${base}/oauth2/token\` (scope \`scim\`) each client works in its own tenant: Users (with the Enterprise extension), Groups and draft Agents; filters, PATCH, ETags, index and cursor pages, \`/.search\` and \`/Bulk\`. Deactivating or deleting a user signals RISC events through Shared Signals. \`scim/check-server\` checks your own SCIM server. See the [provision-with-scim skill](${base}/.well-known/agent-skills/provision-with-scim/SKILL.md) and the tenants at [/scim](${base}/scim).
- SAML 2.0: an identity provider at \`${base}/saml/idp\` (signed [metadata](${base}/saml/idp/metadata); single sign-on and single logout over HTTP-Redirect and HTTP-POST; the demo users sign in) and a service provider at \`${base}/saml/sp\` (\`GET ${base}/saml/sp/login\` starts a login; its ACS checks every rule by name). The pre-registered demo SPs, with a key any SAML library may use to play them, are at [/saml/demo/sps](${base}/saml/demo/sps). \`saml/attack-lab\` sends signature wrapping, comment injection, downgrades, XXE, a DEFLATE bomb and replays to an SP (ours, or yours as a \`target\`). Decode a message with \`POST ${base}/api/lookingglass/decode/saml\`. See the [sign-in-with-saml skill](${base}/.well-known/agent-skills/sign-in-with-saml/SKILL.md).
${clientLine}
- Every field, allowed value and a worked example of both are in the [OpenAPI contract](${base}/openapi.json) ([rendered](${base}/docs/api#oid4vci)).

## Debugging a run

- Recent runs: \`GET ${base}/api/runs\` (newest first; \`?flow=\`, \`?status=\`, \`?cursor=\`), and the [runs page](${base}/runs).
- One stream as a portable file: \`GET ${base}/api/streams/run:<run_id>/export\` (\`portico-stream/1\`: each event with the machine state after it, and a digest); check it anywhere with \`npm run replay -- --import <file>\`.
- Two runs compared: \`GET ${base}/api/runs/<a>/diff/<b>\` lists the differing fields by JSON pointer, volatile values (ids, times, nonces, signatures) apart. A run as HAR 1.2: \`GET ${base}/api/runs/<run_id>/har\`.
- State machines as data: \`GET ${base}/api/machines\` and \`GET ${base}/api/machines/agent\` (JSON; \`?format=scxml\` or \`?format=mermaid\`), \`/api/machines/{id}/paths\`, drawn at [/machines](${base}/machines).
- The [debug-a-run skill](${base}/.well-known/agent-skills/debug-a-run/SKILL.md) has every step.

## Protocols

${list(pages)}
${conformance.length ? `\n## Conformance (self-tests, not certifications)\n\n${list(conformance)}\n` : ''}`;
}
