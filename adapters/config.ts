import { execFileSync } from 'node:child_process';
import { boolean, httpUrl, integer, oneOf, port, trustDomain, trustProxy } from './config-values.ts';
import { join, resolve } from 'node:path';
import type { DemoOverrides } from '../services/oauth/demo-overrides.ts';
import type { SpiffeOptions } from '../services/workload/settings.ts';
import type { WalletSettings } from '../services/wallet/settings.ts';
import { loadWalletSettings } from './wallet/config.ts';
import { pemCertificatesOf } from './pem-env.ts';

/** Everything the services read from the environment, resolved once (decisions section 1). */
export interface Config {
  host: string;
  port: number;
  walletPort: number;
  spiffePort: number;
  baseUrl: string;
  walletUrl: string;
  walletBackendOrigin: string;
  showcaseBaseUrl: string;
  dataDir: string;
  /** The signing keys and server secrets; instances that share it sign and verify alike. */
  keysFile: string;
  /** Where the main origin's event log and read models live: SQLite in DATA_DIR, or PostgreSQL at DATABASE_URL. */
  eventStore: { kind: 'sqlite' } | { kind: 'postgres'; url: string };
  rateLimitPerMinute: number;
  /** Client registrations (RFC 7591) one address may make an hour. */
  registrationsPerHour: number;
  trustProxy: string[] | false;
  vendor: string;
  commit: string;
  repositoryUrl?: string;
  version: string;
  /** DPOP_NONCE_REQUIRED=true: the token endpoints and the issuer's resources demand DPoP nonces. */
  dpopNonceRequired: boolean;
  /** OID4VCI_ENCRYPTION_REQUIRED and OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM (extra attester roots, PEM). */
  oid4vci: { encryptionRequired: boolean; attestationTrustAnchorsPem: string[] };
  /** SHOWCASE_PALETTE_DB (default $DATA_DIR/palette.db), required when SHOWCASE_ENV=production. */
  palette: { file?: string; production: boolean };
  /** CONFORMANCE_REPORT: the self-test report loaded for conformance verdicts. */
  conformanceReport?: string;
  /** LOG_LEVEL: any value turns on request logging. */
  logRequests: boolean;
  /**
   * PORTICO_TEST_INVERT_GUARD=<machine>.<guard>: a test build whose one guard is inverted, the bug the
   * model-based tester must find (docs/machines.md). Never set in a deployment; the start says so loudly.
   */
  invertedGuard?: { machine: string; guard: string };
  /**
   * OUTBOUND_ALLOW_LOOPBACK=true (a test hook, off by default): the main origin's outbound guard lets
   * loopback addresses through, and plain http to them; every other rule stays.
   */
  outboundAllowLoopback: boolean;
  /** DEMO_PASSWORD_<USER> and DEMO_APP_SECRET, DEMO_APP_POST_SECRET, MACHINE_CLIENT_SECRET (decisions §3). */
  demo: DemoOverrides;
  /** SHOWCASE_SPIFFE_ENABLED, SHOWCASE_SPIFFE_SOCKET_PATH, SHOWCASE_SPIFFE_TRUST_DOMAIN, SPIRE_SERVER_ADDRESS. */
  spiffe: SpiffeOptions;
  /** MDOC_IACA_ROOT_PEM as given (PEM text or a file path); the verifier reads and checks it at start. */
  mdocIacaRootPem?: string;
  /**
   * Extensions beyond the specification, each off by default (decisions §11): on, each contradicts a
   * sentence of the specification that docs/decisions.md names.
   */
  extensions: {
    /** DYNAMIC_CLIENTS=true: RFC 7591/7592 registration and client ID metadata documents. */
    dynamicClients: boolean;
    /** MCP_USER_ENDPOINT=true: the protected `/mcp/user` endpoint with the write tools. */
    mcpUserEndpoint: boolean;
  };
  /** The wallet harness's WALLET_* settings (adapters/wallet/config.ts), validated when first read. */
  readonly wallet: WalletSettings;
}

/** The published demo data's overridable secrets: user passwords by user id, client secrets by client id. */
function demoOverrides(env: Record<string, string | undefined>): DemoOverrides {
  const passwords = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    const user = /^DEMO_PASSWORD_([A-Z0-9_]+)$/.exec(name)?.[1];
    if (user && value) passwords.set(user.toLowerCase(), value);
  }
  const clientSecrets = new Map<string, string>();
  for (const [name, client] of [
    ['DEMO_APP_SECRET', 'demo-app'],
    ['DEMO_APP_POST_SECRET', 'demo-app-post'],
    ['MACHINE_CLIENT_SECRET', 'machine-client'],
  ] as const) {
    if (env[name]) clientSecrets.set(client, env[name]!);
  }
  return { passwords, clientSecrets };
}

function gitCommit(): string {
  try {
    return (
      execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() || 'unknown'
    );
  } catch {
    return 'unknown';
  }
}

/** EVENT_STORE (sqlite, the default, or postgres) and DATABASE_URL, checked together. */
function eventStore(env: Record<string, string | undefined>): Config['eventStore'] {
  const kind = env.EVENT_STORE || 'sqlite';
  if (kind === 'sqlite') return { kind };
  if (kind !== 'postgres') throw new Error(`EVENT_STORE must be sqlite or postgres, not "${kind}"`);
  const url = env.DATABASE_URL;
  if (!url || !/^postgres(ql)?:\/\//.test(url))
    throw new Error('DATABASE_URL must be a postgres:// URL when EVENT_STORE is postgres');
  return { kind, url };
}

/** PORTICO_TEST_INVERT_GUARD, read as `{machine, guard}`; a value of another shape stops the start. */
function invertedGuard(value: string | undefined): Pick<Config, 'invertedGuard'> {
  if (!value) return {};
  const [, machine, guard] = /^([A-Za-z][\w-]*)\.([A-Za-z]\w*)$/.exec(value) ?? [];
  if (!machine || !guard) throw new Error('PORTICO_TEST_INVERT_GUARD must be <machine>.<guard>');
  return { invertedGuard: { machine, guard } };
}

export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<Config> = {},
): Config {
  const host = env.HOST || '127.0.0.1';
  const mainPort = port(env, 'PORT', 3000);
  const walletPort = port(env, 'WALLET_PORT', 3001);
  const spiffePort = port(env, 'SPIFFE_PORT', 8080);
  const baseUrl = httpUrl(env, 'BASE_URL', `http://localhost:${mainPort}`);
  const walletUrl = httpUrl(env, 'WALLET_URL', `http://localhost:${walletPort}`);
  const config = {
    host,
    port: mainPort,
    walletPort,
    spiffePort,
    baseUrl,
    walletUrl,
    walletBackendOrigin: httpUrl(env, 'WALLET_BACKEND_ORIGIN', walletUrl),
    showcaseBaseUrl: httpUrl(env, 'SHOWCASE_BASE_URL', `http://localhost:${spiffePort}`),
    dataDir: resolve(env.DATA_DIR || './data'),
    keysFile: resolve(env.KEYS_FILE || join(overrides.dataDir ?? resolve(env.DATA_DIR || './data'), 'keys.json')),
    eventStore: eventStore(env),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 100),
    registrationsPerHour: integer(env, 'REGISTRATIONS_PER_HOUR', 20),
    trustProxy: trustProxy(env.TRUST_PROXY),
    vendor: env.AGENT_AUTH_VENDOR || 'portico',
    commit: env.BUILD_COMMIT || gitCommit(),
    repositoryUrl: env.REPOSITORY_URL ? httpUrl(env, 'REPOSITORY_URL', '') : undefined,
    version: '0.1.0',
    dpopNonceRequired: boolean(env, 'DPOP_NONCE_REQUIRED'),
    oid4vci: {
      encryptionRequired: boolean(env, 'OID4VCI_ENCRYPTION_REQUIRED'),
      attestationTrustAnchorsPem: pemCertificatesOf(env.OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM, (reason) => {
        throw new Error(`OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM ${reason}`);
      }),
    },
    palette: {
      ...(env.SHOWCASE_PALETTE_DB ? { file: env.SHOWCASE_PALETTE_DB } : {}),
      production: oneOf(env, 'SHOWCASE_ENV', ['production', 'development'] as const) === 'production',
    },
    ...(env.CONFORMANCE_REPORT ? { conformanceReport: env.CONFORMANCE_REPORT } : {}),
    logRequests: Boolean(env.LOG_LEVEL),
    ...invertedGuard(env.PORTICO_TEST_INVERT_GUARD),
    outboundAllowLoopback: boolean(env, 'OUTBOUND_ALLOW_LOOPBACK'),
    extensions: {
      dynamicClients: boolean(env, 'DYNAMIC_CLIENTS'),
      mcpUserEndpoint: boolean(env, 'MCP_USER_ENDPOINT'),
    },
    demo: demoOverrides(env),
    spiffe: {
      enabled: boolean(env, 'SHOWCASE_SPIFFE_ENABLED'),
      ...(env.SHOWCASE_SPIFFE_SOCKET_PATH ? { socketPath: env.SHOWCASE_SPIFFE_SOCKET_PATH } : {}),
      ...(trustDomain(env, 'SHOWCASE_SPIFFE_TRUST_DOMAIN') ? { trustDomain: env.SHOWCASE_SPIFFE_TRUST_DOMAIN! } : {}),
      ...(env.SPIRE_SERVER_ADDRESS ? { spireServerAddress: env.SPIRE_SERVER_ADDRESS } : {}),
    },
    ...(env.MDOC_IACA_ROOT_PEM ? { mdocIacaRootPem: env.MDOC_IACA_ROOT_PEM } : {}),
    ...overrides,
  } as Omit<Config, 'wallet'> & { wallet?: WalletSettings };
  // Validated on first use, so a tool or a service without the wallet never fails on a WALLET_* value;
  // `npm start` reads it before loading any service when the wallet is among those it starts.
  let wallet = config.wallet;
  return Object.defineProperty(config, 'wallet', {
    get: () => (wallet ??= loadWalletSettings(env, config)),
    enumerable: true,
  }) as Config;
}

/** What the command-line tools and benches read from the environment (none of it is the services'). */
export function loadToolSettings(env: Record<string, string | undefined> = process.env) {
  return {
    /** BUILD_COMMIT: the commit a conformance report is made for, when git cannot tell. */
    buildCommit: env.BUILD_COMMIT || undefined,
    /** BENCH_RESTART_EVENTS: how many events the restart bench writes before it restarts. */
    benchRestartEvents: integer(env, 'BENCH_RESTART_EVENTS', 1_000_000),
    /** BENCH_VERIFIER_KINDS: the credential kinds the verifier bench runs (comma-separated; unset, all). */
    benchVerifierKinds: env.BENCH_VERIFIER_KINDS ? env.BENCH_VERIFIER_KINDS.split(',') : undefined,
    /** BENCH_CPU_PROFILE=<dir>: a V8 CPU profile of each bench server process, written there. */
    benchCpuProfileDir: env.BENCH_CPU_PROFILE || undefined,
    /** PORTICO_URL: the origin a peer bench process compares against. */
    porticoUrl: env.PORTICO_URL || undefined,
    /** PEER_DEBUG: the bench peers print the errors they answer. */
    peerDebug: Boolean(env.PEER_DEBUG),
  };
}

/** The environment a child process (a bench server, a peer) starts with: this one's, with `extra` on top. */
export const childEnvironment = (
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> => ({
  ...process.env,
  ...extra,
});

/** The variable names of the extensions that are on, as flows name them in their `extensions`. */
export function enabledExtensions(config: Pick<Config, 'extensions'>): ReadonlySet<string> {
  const on = new Set<string>();
  if (config.extensions.dynamicClients) on.add('DYNAMIC_CLIENTS');
  if (config.extensions.mcpUserEndpoint) on.add('MCP_USER_ENDPOINT');
  return on;
}
