import type { FlowRunContext } from '../../machines/flow-run.ts';
import { sha256 } from '../crypto/random.ts';
import { sameText } from '../crypto/compare.ts';
import { oauthError } from '../errors.ts';
import { bearerToken } from '../oauth/authorization-header.ts';
import { challenge } from '../oauth/www-authenticate.ts';

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

/** Step mode's controls need the run's own token as a Bearer token (RFC 6750 §3.1 when it is not). */
export function requireRunToken(
  context: Pick<FlowRunContext, 'runTokenHash'>,
  authorization: string | undefined,
): void {
  const token = bearerToken(authorization);
  const expected = context.runTokenHash;
  if (!token || !expected || !sameText(sha256(token), expected))
    throw oauthError('invalid_token', "The run token is missing, or it is not this run's", {
      'www-authenticate': challenge('Bearer', [
        ['error', 'invalid_token'],
        ['error_description', 'Send the run_token of a stepped run as a Bearer token'],
      ]),
    });
}
