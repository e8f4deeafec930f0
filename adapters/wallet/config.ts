import { pemCertificatesOf } from '../pem-env.ts';
import ipaddr from 'ipaddr.js';
import type { JWK } from 'jose';
import type { WalletSettings } from '../../services/wallet/settings.ts';

/** A WALLET_* value that cannot be used; the message names the variable (start stops with it). */
export class WalletConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
    this.name = 'WalletConfigError';
  }
}

type Env = Record<string, string | undefined>;
const FORMATS = ['mso_mdoc', 'dc+sd-jwt', 'jwt_vc_json', 'jwt_vc_json-ld', 'ldp_vc'] as const;
const DID_METHODS = ['key', 'jwk', 'web'] as const;
const SIGNING_ALGS = ['ES256', 'EdDSA', 'RS256'] as const;
const MAX_TTL_MS = 24 * 3600_000;

const raw = (env: Env, name: string) => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new WalletConfigError(name, `must be one of ${allowed.join(', ')}, not "${value}"`);
  return value as T;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (value !== 'true' && value !== 'false') throw new WalletConfigError(name, `must be true or false, not "${value}"`);
  return value === 'true';
}

/** An absolute http(s) URL without query or fragment, trailing slashes removed. */
function url(name: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new WalletConfigError(name, `"${value}" is not an absolute URL`);
  }
  if (!/^https?:$/.test(parsed.protocol) || parsed.username || parsed.password || parsed.search || parsed.hash)
    throw new WalletConfigError(name, `"${value}" must be an http(s) URL without credentials, query or fragment`);
  return value.replace(/\/+$/, '');
}

const list = (env: Env, name: string) =>
  (raw(env, name) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `90s`, `20m`, `1h30m`: hours, minutes and seconds, each optional but at least one. */
export function parseDuration(name: string, value: string): number {
  const m = /^(?:(\d{1,3})h)?(?:(\d{1,4})m)?(?:(\d{1,6})s)?$/.exec(value);
  if (!m || (!m[1] && !m[2] && !m[3]))
    throw new WalletConfigError(name, `"${value}" is not a duration such as 90s, 20m or 1h30m`);
  const ms = ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
  if (ms <= 0 || ms > MAX_TTL_MS) throw new WalletConfigError(name, 'must be more than 0 s and at most 24h');
  return ms;
}

/** PEM text or the path of a PEM file; every certificate in it must parse. */
const pemCertificates = (env: Env, name: string): string[] =>
  pemCertificatesOf(raw(env, name), (reason) => {
    throw new WalletConfigError(name, reason);
  });

/** A private EC or OKP JWK as JSON (with `d`), optionally carrying `x5c`. */
function privateJwk(env: Env, name: string): JWK | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  let jwk: unknown;
  try {
    jwk = JSON.parse(value);
  } catch {
    throw new WalletConfigError(name, 'is not JSON');
  }
  const k = jwk as JWK;
  if (
    !k ||
    typeof k !== 'object' ||
    Array.isArray(k) ||
    !['EC', 'OKP'].includes(String(k.kty)) ||
    typeof k.d !== 'string' ||
    typeof k.x !== 'string'
  ) {
    throw new WalletConfigError(name, 'must be a private EC or OKP JWK (kty, crv, x, d)');
  }
  if (k.x5c !== undefined && (!Array.isArray(k.x5c) || k.x5c.some((c) => typeof c !== 'string')))
    throw new WalletConfigError(name, 'x5c must be an array of base64 certificates');
  return k;
}

/** `host=ip,host2=ip` name overrides that precede DNS (a test hook). */
function dnsOverrides(env: Env, name: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const entry of list(env, name)) {
    const [host, ip] = entry.split('=').map((s) => s?.trim().toLowerCase());
    if (!host || !ip || !ipaddr.isValid(ip)) throw new WalletConfigError(name, `"${entry}" is not host=ip`);
    out.set(host, [...(out.get(host) ?? []), ipaddr.process(ip).toString()]);
  }
  return out;
}

const originOf = (name: string, value: string) => {
  const checked = url(name, value);
  return new URL(checked).origin;
};

/**
 * The wallet's settings from the environment (spec section 1, decisions section 10); throws naming the
 * variable. Called by the one configuration (adapters/config.ts), with the origins it resolved.
 */
export function loadWalletSettings(env: Env, config: { baseUrl: string; walletUrl: string }): WalletSettings {
  const targetBaseUrl = url('WALLET_TARGET_BASE_URL', raw(env, 'WALLET_TARGET_BASE_URL') ?? config.baseUrl);
  const issuerBaseUrl = url('WALLET_ISSUER_BASE_URL', raw(env, 'WALLET_ISSUER_BASE_URL') ?? targetBaseUrl);
  const base = new URL(config.baseUrl);
  const defaultCors = [
    base.origin,
    ...(base.hostname.startsWith('www.') || /^[\d.]+$|^\[|^localhost$/.test(base.hostname)
      ? []
      : [`${base.protocol}//www.${base.host}`]),
  ];
  const cors =
    raw(env, 'WALLET_ALLOWED_CORS_ORIGINS') === undefined
      ? defaultCors
      : list(env, 'WALLET_ALLOWED_CORS_ORIGINS').map((o) => originOf('WALLET_ALLOWED_CORS_ORIGINS', o));
  const subject = raw(env, 'WALLET_DEFAULT_SUBJECT') ?? 'did:example:wallet';
  if (subject.length > 200 || /[\u0000-\u001f\u007f]/.test(subject))
    throw new WalletConfigError('WALLET_DEFAULT_SUBJECT', 'must be at most 200 printable characters');
  const attestedClientId = raw(env, 'WALLET_OID4VCI_ATTESTED_CLIENT_ID') ?? 'portico-wallet';
  if (!/^[\x21-\x7e]{1,200}$/.test(attestedClientId))
    throw new WalletConfigError('WALLET_OID4VCI_ATTESTED_CLIENT_ID', 'must be 1 to 200 visible ASCII characters');
  const levels = (name: string) => {
    const values = list(env, name);
    for (const v of values)
      if (!/^[a-z0-9_]{1,64}$/.test(v))
        throw new WalletConfigError(name, `"${v}" is not a level name such as iso_18045_moderate`);
    return values;
  };
  const clientAttestationAttesterJwk = privateJwk(env, 'WALLET_CLIENT_ATTESTATION_ATTESTER_JWK_JSON');
  const keyAttestationJwk = privateJwk(env, 'WALLET_CLIENT_ATTESTATION_KEY_ATTESTATION_JWK_JSON');
  return {
    walletUrl: config.walletUrl,
    targetBaseUrl,
    issuerBaseUrl,
    allowedCorsOrigins: cors,
    defaultSubject: subject,
    defaultCredentialFormat: oneOf(env, 'WALLET_DEFAULT_CREDENTIAL_FORMAT', FORMATS, 'mso_mdoc'),
    didMethod: oneOf(env, 'WALLET_DID_METHOD', DID_METHODS, 'key'),
    defaultSigningAlg: oneOf(env, 'WALLET_DEFAULT_SIGNING_ALG', SIGNING_ALGS, 'ES256'),
    sessionTtlMs: parseDuration('WALLET_SESSION_TTL', raw(env, 'WALLET_SESSION_TTL') ?? '20m'),
    strictSessionIsolation: boolean(env, 'WALLET_STRICT_SESSION_ISOLATION', true),
    allowExternalVerifiers: boolean(env, 'WALLET_ALLOW_EXTERNAL_VERIFIERS', true),
    trustedVerifierAttestationIssuers: list(env, 'WALLET_TRUSTED_VERIFIER_ATTESTATION_ISSUERS').map((u) =>
      url('WALLET_TRUSTED_VERIFIER_ATTESTATION_ISSUERS', u),
    ),
    deviceKeyPath: raw(env, 'WALLET_DEVICE_KEY_PATH'),
    verifierTrustAnchorsPem: pemCertificates(env, 'WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM'),
    mdocIacaRootsPem: pemCertificates(env, 'WALLET_MDOC_IACA_ROOT_PEM'),
    clientAttestationAttesterJwk,
    keyAttestationJwk,
    haipEnabled: clientAttestationAttesterJwk !== undefined && keyAttestationJwk !== undefined,
    attestedClientId,
    clientAttestationIssuer: url(
      'WALLET_CLIENT_ATTESTATION_ISSUER',
      raw(env, 'WALLET_CLIENT_ATTESTATION_ISSUER') ?? `${config.walletUrl}/attester`,
    ),
    keyAttestationKeyStorage: levels('WALLET_KEY_ATTESTATION_KEY_STORAGE'),
    keyAttestationUserAuthentication: levels('WALLET_KEY_ATTESTATION_USER_AUTHENTICATION'),
    dnsOverrides: dnsOverrides(env, 'WALLET_DNS_OVERRIDES'),
  };
}
