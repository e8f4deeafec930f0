import { OAuthError } from '../errors.ts';

/** What every MCP tool of Portico shares: its input string shape, its annotations, its answers. */
export const str = (description: string, maxLength = 200) => ({ type: 'string', description, maxLength });

/** Every tool reads only: nothing it does changes the sandbox. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A structured answer, with its JSON text for clients that read only `content`. */
export const result = (structured: object) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(structured) }],
  structuredContent: structured as Record<string, unknown>,
});

/** A refusal the caller can act on (a tool error, not a protocol error). */
export const toolError = (message: string) => ({ content: [{ type: 'text' as const, text: message }], isError: true });

/** Runs a tool's work: refusals the caller can act on (the HTTP API's errors) come back as tool errors. */
export async function answer(work: () => Promise<object>) {
  try {
    return result(await work());
  } catch (error) {
    if (error instanceof OAuthError) return toolError(`${error.error}: ${error.description}`);
    throw error;
  }
}
