import type { KeyObject } from 'node:crypto';
import type { presentationMachine } from '../../machines/presentation.ts';
import type { ActorRuntime, Loaded } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { StatusChecker } from '../status/check.ts';
import type { CredentialTrust, VerifierSettings } from './settings.ts';

/** A direct_post.jwt decryption key, kept by request id until the request lapses. */
export interface KeptDecryptionKey {
  privateKey: KeyObject;
  expiresAt: number;
  transactionId?: string;
}

/** What the verifier's endpoint modules (response, result) use of the verifier. */
export interface VerifierCore {
  readonly requests: ActorRuntime<typeof presentationMachine>;
  readonly settings: VerifierSettings;
  readonly trust: CredentialTrust;
  readonly clock: Clock;
  /** Resolves presented credentials' status references (docs/status.md). */
  readonly status: StatusChecker;
  readonly decryptionKeys: Map<string, KeptDecryptionKey>;
  /** The request as it stands, with a lapsed unanswered request marked expired first. */
  current(id: string): Promise<Loaded<typeof presentationMachine>>;
  resultUri(transactionId: string): string;
}
