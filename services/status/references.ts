import { bitstringReferences } from '../credentials/status-list/bitstring-credential.ts';
import { tokenStatusReference } from '../credentials/status-list/reference.ts';
import type { CredentialStatusView } from '../../machines/presentation.ts';
import type { StatusOutcome, StatusReference } from './check.ts';

/** A credential's status references, or `malformed` when one cannot be read (it then fails closed). */
export type References = StatusReference[] | 'malformed';

/** An SD-JWT VC's `status` claim, or an mdoc MSO's `status`. */
export function tokenReferences(status: unknown): References {
  const reference = tokenStatusReference(status);
  if (reference === 'malformed') return 'malformed';
  return reference ? [{ kind: 'token', ...reference }] : [];
}

/** A W3C credential's `BitstringStatusListEntry`s. */
export function bitstringReferencesOf(credential: Record<string, unknown>): References {
  const entries = bitstringReferences(credential);
  if (entries.some((e) => e.idx < 0 || !/^https?:\/\//.test(e.url))) return 'malformed';
  return entries.map((e) => ({ kind: 'bitstring', ...e }));
}

/** How a reference is shown (result documents, the wallet, the looking glass). */
export const referenceView = (r: StatusReference) =>
  r.kind === 'token'
    ? { type: 'status_list', uri: r.uri, idx: r.idx }
    : { type: 'BitstringStatusListEntry', status_purpose: r.purpose, status_list_credential: r.url, idx: r.idx };

/** One resolved reference as shown: the reference, what its list said, and when. */
export const outcomeView = (o: StatusOutcome): CredentialStatusView => ({
  ...referenceView(o.reference),
  ...(o.status !== undefined ? { status: o.status } : {}),
  ...(o.failure ? { failed: o.failure.check } : {}),
  cached: o.cached,
  resolved_at: new Date(o.resolvedAt).toISOString(),
});
