import { expect } from 'vitest';
import { OAuthError } from '../../services/errors.ts';

/** The OAuthError a rule throws for this input, or undefined when the rule lets it through. */
export function refusalOf(rule: () => unknown): OAuthError | undefined {
  try {
    rule();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    return error as OAuthError;
  }
}
