import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { SqliteEventLog } from '../../store/sqlite-event-log.ts';
import type { Clock } from '../../../services/clock.ts';
import type { DeviceKey } from '../../../services/wallet/device-key.ts';
import type { OutboundHttp } from '../../../services/outbound.ts';
import type { WalletCredentialStatus } from '../../../services/wallet/credential-status.ts';
import type { WalletSessions } from '../../../services/wallet/sessions.ts';
import type { WalletSettings } from '../../../services/wallet/settings.ts';
import type { WalletIssuance } from '../../../services/wallet/issuance/service.ts';
import type { WalletPresentation } from '../../../services/wallet/presentation/service.ts';

/** Trust material the wallet holds beyond its variables (under `npm start`: the main origin's roots). */
export interface WalletTrust {
  mdocIacaRootsPem: string[];
  verifierTrustAnchorsPem: string[];
  /** `embedded` beside the main origin in one process (and trusting its roots), `standalone` alone. */
  mode: 'embedded' | 'standalone';
}

/** Everything the wallet's route plugins are given; built once in `app.ts`. */
export interface WalletContext {
  config: Config;
  settings: WalletSettings;
  clock: Clock;
  sessions: WalletSessions;
  deviceKey: DeviceKey;
  outbound: OutboundHttp;
  /** Held credentials' status, each list fetched through the guard and kept for its ttl. */
  credentialStatus: WalletCredentialStatus;
  trust: WalletTrust;
  /** The wallet's own event log (`wallet.db`): exchange steps, secrets as fingerprints. */
  log: SqliteEventLog;
  /** The OID4VCI client side (issue, import, callback). */
  issuance: WalletIssuance;
  /** The OID4VP holder side (resolve, present, submit, authorize, consent). */
  presentation: WalletPresentation;
  /** Whether a request's X-Forwarded-* headers may be believed (loopback or TRUST_PROXY peers). */
  trustsForwarding(peer: string | undefined): boolean;
}

export type WalletRoutes = (app: FastifyInstance, ctx: WalletContext) => Promise<void> | void;
