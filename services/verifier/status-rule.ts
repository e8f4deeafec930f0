import type { CredentialStatusView } from '../../machines/presentation.ts';
import type { StatusChecker } from '../status/check.ts';
import { outcomeView, referenceView, type References } from '../status/references.ts';
import type { CheckVerdict } from './presentation-outcome.ts';

/** What the status rule found for one presentation's credentials. */
export interface StatusRuleOutcome {
  checks: CheckVerdict[];
  /** Per credential, in order: each reference's view with the status found. */
  views: CredentialStatusView[][];
  failure?: { check: string; reason: string };
}

/**
 * The status rule (draft-ietf-oauth-status-list §8.3, Bitstring Status List §3.2): every reference of
 * every credential resolved; a revoked one fails the presentation as `credential_revoked`, a suspended
 * one as `credential_suspended`, and a list that cannot be had or trusted as `status_unavailable`
 * (closed). Every list check that held is reported, in order.
 */
export async function checkStatuses(references: References[], checker: StatusChecker): Promise<StatusRuleOutcome> {
  const checks: CheckVerdict[] = [];
  const views: CredentialStatusView[][] = [];
  const passed = new Set<string>();
  let failure: StatusRuleOutcome['failure'];
  for (const credentialReferences of references) {
    if (credentialReferences === 'malformed') {
      failure ??= { check: 'status_unavailable', reason: 'the credential has a status reference that cannot be read' };
      views.push([]);
      continue;
    }
    const outcomes = [];
    for (const reference of credentialReferences) {
      const outcome = await checker.check(reference);
      outcomes.push(outcome);
      for (const check of outcome.held) passed.add(check);
      if (outcome.failure && !failure)
        failure = {
          check: outcome.failure.check,
          reason: `${referenceView(reference).type} ${reference.idx}: ${outcome.failure.reason}`,
        };
    }
    views.push(outcomes.map(outcomeView));
  }
  for (const check of passed) checks.push({ check, verdict: 'passed' });
  if (failure) checks.push({ check: failure.check, verdict: 'failed' });
  return { checks, views, ...(failure ? { failure } : {}) };
}
