import { randomBytes } from 'node:crypto';
import { clientRequest } from '../../oauth/client-kit.ts';
import { challengeParams } from '../../oauth/www-authenticate.ts';
import { FlowFailure, expectStatus, stringIn, type FlowRunners, type RunContext } from '../registry.ts';
import { authorizeAsPerson, b64url, checkAuthorizationResponse, pkcePair } from './oauth-helpers.ts';

/** The client metadata document the runner publishes for itself (served at this path of the origin). */
export const FLOW_CLIENT_DOCUMENT_PATH = '/mcp/flow-client.json';

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** Whether a tool call's answer (JSON or one server-sent event, perhaps shortened by the capture) is a result, not an error. */
const toolSucceeded = (body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.includes('"result"') && !text.includes('"isError":true');
};

function mcpCall(run: RunContext, step: string, body: object, token: string | undefined, rules: string[]) {
  return run.http.send(
    step,
    `${run.base}/mcp/user`,
    {
      json: { jsonrpc: '2.0', id: step, ...body },
      headers: { ...MCP_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    },
    rules,
  );
}

interface AuthorizationServer {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  pushed_authorization_request_endpoint?: string;
  client_id_metadata_document_supported?: boolean;
}

/** The client id: the runner's own metadata document where the AS takes one, else a registration (RFC 7591). */
async function clientIdFor(run: RunContext, as: AuthorizationServer, redirectUri: string): Promise<string> {
  if (as.client_id_metadata_document_supported && run.options.registration !== 'dcr') {
    const documentUrl = `${run.base}${FLOW_CLIENT_DOCUMENT_PATH}`;
    const doc = await run.http.send('Our client metadata document', documentUrl, {}, [
      'Client ID Metadata Document: the client_id is this URL, and the AS fetches it',
    ]);
    if (doc.status === 200) return documentUrl;
  }
  if (!as.registration_endpoint) throw new FlowFailure('the AS offers neither metadata documents nor registration');
  const registered = await run.http.send(
    'Register the client (DCR fallback)',
    as.registration_endpoint,
    {
      json: {
        client_name: 'Portico flow runner (MCP)',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
      },
    },
    ['RFC 7591 §3.1: a public client, PKCE instead of a secret'],
  );
  expectStatus(registered.status, 201, 'registration');
  return registered.json.client_id as string;
}

/** PAR when the AS offers it (RFC 9126), then the person signs in; answers the token response. */
async function authorize(run: RunContext, as: AuthorizationServer, clientId: string, scope: string, label: string) {
  const redirectUri = `${run.base}/callback`;
  const resource = `${run.base}/mcp/user`;
  const state = b64url(randomBytes(12));
  const pkce = pkcePair();
  const request = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    resource,
  };
  let authorizeUrl = `${as.authorization_endpoint}?${new URLSearchParams(request)}`;
  if (as.pushed_authorization_request_endpoint) {
    const pushed = await run.http.send(
      `Push the ${label} request`,
      as.pushed_authorization_request_endpoint,
      { form: request },
      [
        'RFC 9126 §2: the parameters go to the AS directly; the browser carries only request_uri',
        'RFC 8707 §2: resource names the MCP endpoint, so the token is bound to it',
      ],
    );
    expectStatus(pushed.status, 201, 'pushed authorization request');
    authorizeUrl = `${as.authorization_endpoint}?${new URLSearchParams({ client_id: clientId, request_uri: stringIn(pushed, 'request_uri') })}`;
  }
  const code = checkAuthorizationResponse(await authorizeAsPerson(run, authorizeUrl), as.issuer, state);
  const token = await run.http.send(
    `Token (${label})`,
    as.token_endpoint,
    clientRequest(
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: pkce.verifier, resource },
      { method: 'none', clientId },
    ),
    ['RFC 7636 §4.5: code_verifier', 'RFC 8707 §2.2: aud is the MCP endpoint'],
  );
  expectStatus(token.status, 200, 'token request');
  return token.json.access_token as string;
}

/** The MCP authorization dance against `/mcp/user`, every exchange captured. */
export function registerMcpRunners(runners: FlowRunners): void {
  runners.register('mcp', 'authorization', async (run) => {
    const initialize = {
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'portico-flow', version: '1' } },
    };
    const refused = await mcpCall(run, 'Connect without a token', initialize, undefined, [
      'MCP authorization: 401 with WWW-Authenticate naming the resource metadata (RFC 9728 §5.1)',
    ]);
    expectStatus(refused.status, 401, 'unauthenticated call');
    const challenge = challengeParams(refused.headers.get('www-authenticate'));
    const metadataUrl = challenge.get('resource_metadata');
    if (!metadataUrl) throw new FlowFailure('the 401 names no resource_metadata');
    const prm = await run.http.send('Protected resource metadata', metadataUrl, {}, [
      'RFC 9728 §3: resource and authorization_servers',
    ]);
    expectStatus(prm.status, 200, 'resource metadata');
    const issuer = (prm.json.authorization_servers as string[])[0];
    const asUrl = new URL(issuer);
    const asMetadata = await run.http.send(
      'Authorization server metadata',
      `${asUrl.origin}/.well-known/oauth-authorization-server${asUrl.pathname === '/' ? '' : asUrl.pathname}`,
      {},
      ['RFC 8414 §3: the path-inserted well-known URI'],
    );
    expectStatus(asMetadata.status, 200, 'AS metadata');
    const as = asMetadata.body as AuthorizationServer;
    const clientId = await clientIdFor(run, as, `${run.base}/callback`);
    const readScope = challenge.get('scope') ?? 'mcp:read';
    const token = await authorize(run, as, clientId, readScope, 'read');
    const connected = await mcpCall(run, 'Connect with the token', initialize, token, [
      'RFC 6750 §2.1: Bearer; the endpoint takes only tokens whose aud is its URL',
    ]);
    expectStatus(connected.status, 200, 'authorized call');
    const me = await mcpCall(
      run,
      'Call whoami',
      { method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      token,
      ['The token’s subject, client, scopes and audience'],
    );
    expectStatus(me.status, 200, 'whoami');
    if (!toolSucceeded(me.body)) throw new FlowFailure('whoami answered an error');
    const startFlow = {
      method: 'tools/call',
      params: { name: 'start_flow', arguments: { protocolId: 'oauth2', flowId: 'client-credentials' } },
    };
    const denied = await mcpCall(run, 'Call start_flow with mcp:read', startFlow, token, [
      'RFC 6750 §3.1: 403 insufficient_scope names the scopes needed (MCP step-up)',
    ]);
    expectStatus(denied.status, 403, 'start_flow without mcp:write');
    const wider = challengeParams(denied.headers.get('www-authenticate')).get('scope');
    if (!wider?.split(' ').includes('mcp:write'))
      throw new FlowFailure('the step-up challenge does not name mcp:write');
    const stepped = await authorize(run, as, clientId, wider, 'step-up');
    const started = await mcpCall(run, 'Call start_flow after step-up', startFlow, stepped, [
      'The wider token may start a run, recorded as this token’s',
    ]);
    expectStatus(started.status, 200, 'start_flow');
    if (!toolSucceeded(started.body)) throw new FlowFailure('start_flow answered an error, not a run');
  });
}
