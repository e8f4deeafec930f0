import type { KeyPair } from '../credentials/keys/index.ts';

/**
 * The mdoc device key every session of this wallet shares: bound at issuance, it signs the
 * DeviceResponse at presentation (spec OID4VP behaviour 3). Persistent when the wallet keeps it in
 * `WALLET_DEVICE_KEY_PATH`; otherwise it lasts as long as the process.
 */
export interface DeviceKey {
  pair: KeyPair;
  persistent: boolean;
}
