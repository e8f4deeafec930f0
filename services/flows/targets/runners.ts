import { stringOf, type JsonObject } from '../../untrusted/json.ts';
import { FlowFailure, stringIn, type FlowRunners, type RunContext } from '../registry.ts';
import { clientRequest, type ClientAuthentication } from '../../oauth/client-kit.ts';
import { pkcePair } from '../runners/oauth-helpers.ts';
import { randomToken } from '../../crypto/random.ts';
import {
  introspectionShape,
  issParameter,
  issuerMatches,
  pkceAdvertised,
  pkceHonoured,
  stateEchoed,
  tokenResponseShape,
} from './checks.ts';
import { idTokenChecks } from './id-token.ts';
import type { Target } from './target.ts';

type Metadata = Record<string, unknown>;

const targetOf = (run: RunContext): Target => {
  if (!run.target) throw new FlowFailure('This run has no target');
  return run.target;
};

/**
 * The target's metadata: RFC 8414 first (the well-known segment inserted before the issuer's path,
 * §3.1), then OpenID Connect Discovery (appended, §4). Its issuer must be the target's (§3.3).
 */
async function discover(run: RunContext, target: Target): Promise<Metadata> {
  const issuer = new URL(target.issuer);
  const path = issuer.pathname.replace(/\/$/, '');
  const candidates = [
    { url: `${issuer.origin}/.well-known/oauth-authorization-server${path}`, rule: 'RFC 8414 §3.3' },
    {
      url: `${target.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
      rule: 'OpenID Connect Discovery 1.0 §4.3',
    },
  ];
  for (const { url, rule } of candidates) {
    // Metadata may be served behind a redirect; each hop goes through the outbound guard again.
    const res = await run.http.send('Discover the target', url, { follow: true }, [
      rule.replace('§4.3', '§4').replace('§3.3', '§3'),
    ]);
    if (res.status !== 200 || typeof res.body !== 'object' || res.body === null) continue;
    const metadata = res.body as Metadata;
    const matched = issuerMatches(metadata.issuer, target.issuer, rule);
    await run.check(matched);
    // Metadata naming another issuer may send the client's secret anywhere (RFC 8414 §3.3's mix-up): stop.
    if (matched.verdict === 'failed')
      throw new FlowFailure(`${matched.detail}: the run stops before any credential is sent (${rule})`);
    return metadata;
  }
  throw new FlowFailure('The target publishes no authorization server metadata (RFC 8414) nor OpenID configuration');
}

const endpoint = (metadata: Metadata, name: string): string => {
  const value = metadata[name];
  if (typeof value !== 'string') throw new FlowFailure(`The target's metadata has no ${name} (RFC 8414 §2)`);
  return value;
};

/** RFC 6749 §2.3.1: the client authenticates as the target was told (Basic, in the form, or not at all). */
const clientOf = (target: Target): ClientAuthentication =>
  target.authMethod === 'none'
    ? { method: 'none', clientId: target.clientId }
    : { method: target.authMethod, clientId: target.clientId, secret: target.clientSecret! };

async function clientCredentialsToken(run: RunContext, target: Target, metadata: Metadata) {
  const res = await run.http.send(
    `Token request (${target.authMethod})`,
    endpoint(metadata, 'token_endpoint'),
    clientRequest(
      { grant_type: 'client_credentials', ...(target.scope ? { scope: target.scope } : {}) },
      clientOf(target),
    ),
    ['RFC 6749 §4.4.2'],
  );
  await run.check(tokenResponseShape(res));
  if (res.status !== 200 || typeof res.json.access_token !== 'string')
    throw new FlowFailure(
      `The target's token endpoint answered HTTP ${res.status} ${stringOf(res.json.error) ?? ''}`.trim(),
    );
  return { access_token: res.json.access_token, token_type: stringOf(res.json.token_type) ?? 'Bearer' };
}

/**
 * RFC 6749 §4.1 with PKCE (RFC 7636): the person signs in at the target (the run waits in
 * `awaiting_user`), comes back to our callback, and the code is redeemed with its verifier.
 */
async function authorizationCode(
  run: RunContext,
  target: Target,
  options: { openid: boolean },
): Promise<{ metadata: Metadata; tokens: JsonObject }> {
  const metadata = await discover(run, target);
  await run.check(pkceAdvertised(metadata));
  const { verifier, challenge } = pkcePair();
  const state = randomToken(24);
  const nonce = randomToken(24);
  const url = new URL(endpoint(metadata, 'authorization_endpoint'));
  const scope = target.scope ?? (options.openid ? 'openid' : undefined);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: target.clientId,
    redirect_uri: run.callbackUrl,
    ...(scope ? { scope } : {}),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(options.openid ? { nonce } : {}),
  }))
    url.searchParams.set(name, value);
  const back = await run.awaitUser(url.href, state);
  await run.check(stateEchoed(state, back));
  await run.check(issParameter(back, metadata, target.issuer));
  const code = back.get('code');
  if (!code) throw new FlowFailure(`The target sent no code: error=${back.get('error') ?? '(none)'}`);
  const res = await run.http.send(
    'Token request (authorization_code)',
    endpoint(metadata, 'token_endpoint'),
    clientRequest(
      { grant_type: 'authorization_code', code, redirect_uri: run.callbackUrl, code_verifier: verifier },
      clientOf(target),
    ),
    ['RFC 6749 §4.1.3', 'RFC 7636 §4.5'],
  );
  await run.check(tokenResponseShape(res));
  await run.check(pkceHonoured(res.status));
  if (res.status !== 200)
    throw new FlowFailure(
      `The target's token endpoint answered HTTP ${res.status} ${stringOf(res.json.error) ?? ''}`.trim(),
    );
  if (!options.openid) return { metadata, tokens: res.json };
  const idToken = res.json.id_token;
  if (typeof idToken !== 'string')
    throw new FlowFailure('The token response has no id_token (OpenID Connect Core §3.1.3.3)');
  const jwks = await run.http.send("The target's keys", endpoint(metadata, 'jwks_uri'), { follow: true }, [
    'RFC 7517 §5',
  ]);
  for (const result of await idTokenChecks(idToken, jwks.json, {
    issuer: target.issuer,
    clientId: target.clientId,
    nonce,
    nowS: run.nowS(),
    code,
    accessToken: stringIn(res, 'access_token'),
  }))
    await run.check(result);
  return { metadata, tokens: res.json };
}

/** RFC 6749 §6: the code flow's refresh token, exchanged for a fresh access token. */
async function refreshToken(run: RunContext, target: Target) {
  const { metadata, tokens } = await authorizationCode(run, target, { openid: false });
  if (typeof tokens.refresh_token !== 'string')
    throw new FlowFailure('The target issued no refresh_token (ask for the scope it needs, e.g. offline_access)');
  const client = clientOf(target);
  const res = await run.http.send(
    'Token request (refresh_token)',
    endpoint(metadata, 'token_endpoint'),
    clientRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, client),
    ['RFC 6749 §6'],
  );
  await run.check(tokenResponseShape(res));
  if (res.status !== 200)
    throw new FlowFailure(
      `The target refused the refresh: HTTP ${res.status} ${stringOf(res.json.error) ?? ''}`.trim(),
    );
}

/** The flows that run against a target of the user's own (docs/flows.md, "Your own server as the target"). */
export function registerTargetRunners(runners: FlowRunners): void {
  runners.register('oauth2', 'client-credentials', async (run) => {
    const target = targetOf(run);
    await clientCredentialsToken(run, target, await discover(run, target));
  });
  runners.register('oauth2', 'authorization-code-pkce', async (run) => {
    await authorizationCode(run, targetOf(run), { openid: false });
  });
  runners.register('oidc', 'authorization-code-id-token', async (run) => {
    await authorizationCode(run, targetOf(run), { openid: true });
  });
  runners.register('oauth2', 'refresh-token', (run) => refreshToken(run, targetOf(run)));
  runners.register('oauth2', 'token-introspection', async (run) => {
    const target = targetOf(run);
    const metadata = await discover(run, target);
    if (typeof metadata.introspection_endpoint !== 'string')
      throw new FlowFailure('The target does not advertise an introspection_endpoint (RFC 8414 §2)');
    const token = await clientCredentialsToken(run, target, metadata);
    const client = clientOf(target);
    for (const [label, value, active] of [
      ['the fresh token', token.access_token, true],
      ['a token it never issued', `not-a-token-${token.access_token.length}`, false],
    ] as const) {
      const res = await run.http.send(
        `Introspect ${label}`,
        metadata.introspection_endpoint,
        clientRequest({ token: value }, client),
        ['RFC 7662 §2.1'],
      );
      await run.check(introspectionShape(res, active));
    }
  });
}
