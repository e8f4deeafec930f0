import { FlowFailure, expectStatus, type RunContext } from '../registry.ts';
import { basicCredentials, newPkcePair, clientRequest } from '../../oauth/client-kit.ts';
import { memberAt } from '../../untrusted/json.ts';

export const b64url = (b: Buffer) => b.toString('base64url');
/** The client kit's HTTP Basic credentials (RFC 6749 §2.3.1). */
export const basic = basicCredentials;

/** The client kit's PKCE pair (services/oauth/client-kit.ts). */
export const pkcePair = newPkcePair;

export interface DemoClientRecord {
  client_id: string;
  client_secret: string | null;
  redirect_uris: string[];
  private_jwks?: { keys: Array<Record<string, string>> };
}

/** Reads a published demo client, as any agent could. */
export async function demoClient(run: RunContext, id: string): Promise<DemoClientRecord> {
  const res = await run.http.send('Read the published demo clients', `${run.base}/oauth2/demo/clients`, {}, [
    'Demo clients are public: every token minted here is public too',
  ]);
  expectStatus(res.status, 200, 'demo clients');
  const client = (res.json.clients as DemoClientRecord[]).find((c) => c.client_id === id);
  if (!client) throw new FlowFailure(`demo client ${id} is not published`);
  return client;
}

/**
 * The browser's part of an authorization request: follow it to our login page, sign in as a demo user,
 * consent. Performed by the runner as the person, over HTTP, each hop recorded.
 */
export async function authorizeAsPerson(run: RunContext, authorizeUrl: string, username = 'alice'): Promise<URL> {
  const first = await run.http.send('Authorization request (browser)', authorizeUrl, {}, [
    'RFC 6749 §4.1.1: the client sends the browser to the authorization endpoint',
  ]);
  expectStatus(first.status, 303, 'authorization request');
  const interaction = new URL(first.headers.get('location')!, run.base).href;
  const page = await run.http.send('Login page (person)', interaction);
  expectStatus(page.status, 200, 'login page');
  const login = await run.http.send(
    'Sign in as a demo user (person)',
    `${interaction}/login`,
    { form: { username, password: `${username}-demo-password` } },
    ['Acting as the person: demo passwords are published'],
  );
  expectStatus(login.status, 303, 'sign-in');
  const consentPage = await run.http.send('Consent page (person)', interaction);
  expectStatus(consentPage.status, 200, 'consent page');
  const consent = await run.http.send('Allow (person)', `${interaction}/consent`, { form: { decision: 'approve' } }, [
    'RFC 6749 §4.1.2: the browser returns to the redirect URI with code, state and iss (RFC 9207)',
  ]);
  expectStatus(consent.status, 303, 'consent');
  return new URL(consent.headers.get('location')!);
}

export function checkAuthorizationResponse(landed: URL, issuer: string, state: string): string {
  if (landed.searchParams.get('state') !== state) throw new FlowFailure('state did not round-trip');
  if (landed.searchParams.get('iss') !== issuer) throw new FlowFailure('iss is not the expected issuer (RFC 9207)');
  const code = landed.searchParams.get('code');
  if (!code) throw new FlowFailure(`no code: ${landed.searchParams.get('error') ?? 'unknown error'}`);
  return code;
}

/**
 * A client_credentials access token of `{base}/oauth2` for the demo machine client (RFC 6749 §4.4), for a
 * resource of this origin that takes `scope` (the SSF management API, the SCIM service provider).
 */
export async function machineToken(run: RunContext, scope: string, step: string, note: string): Promise<string> {
  const client = await demoClient(run, 'machine-client');
  const token = await run.http.send(
    step,
    `${run.base}/oauth2/token`,
    clientRequest(
      { grant_type: 'client_credentials', scope },
      { method: 'client_secret_basic', clientId: client.client_id, secret: client.client_secret! },
    ),
    [note],
  );
  expectStatus(token.status, 200, 'token');
  const accessToken = memberAt(token.body, 'access_token');
  if (typeof accessToken !== 'string') throw new FlowFailure('The token response has no access_token');
  return accessToken;
}
