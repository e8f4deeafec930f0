import type { FlowRunContext } from '../../machines/flow-run.ts';
import { sha256 } from '../crypto/random.ts';
import { sameText } from '../crypto/compare.ts';

/** Whether the run was started against a server of the learner's own (`target`). */
function isTargeted(context: Pick<FlowRunContext, 'options'>): boolean {
  return context.options?.target !== undefined;
}

/**
 * Who may read a run. A catalog run against our own demo is public; a run against a learner's own
 * server shows that server's real tokens and a fingerprint of a real secret, so it is readable only
 * with its run_token (shown once, when it started).
 */
export function runReadableWith(
  context: Pick<FlowRunContext, 'options' | 'runTokenHash'>,
  tokens: readonly string[],
): boolean {
  if (!isTargeted(context)) return true;
  const expected = context.runTokenHash;
  return expected !== undefined && tokens.some((token) => sameText(sha256(token), expected));
}
