import { createServer, type RequestListener, type Server } from 'node:http';
import { startMainServer, type TestServer } from './main-server.ts';

/**
 * A small authorization server of the test's own on loopback (a flow's target), and our main origin
 * beside it with the outbound guard's loopback test hook on (OUTBOUND_ALLOW_LOOPBACK).
 */
export async function startTargetBeside(
  handler: RequestListener,
): Promise<{ base: string; portico: TestServer; close(): Promise<void> }> {
  const target: Server = createServer(handler);
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(target.address() as { port: number }).port}`;
  const portico = await startMainServer({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  return {
    base,
    portico,
    async close() {
      await portico.close();
      target.closeAllConnections();
      await new Promise((r) => target.close(r));
    },
  };
}

/** Answers a test's target holds back until the test releases them, so runs stay under way as long as it needs. */
export function heldAnswers(): { hold(answer: () => void): void; release(): void } {
  let held: Array<() => void> = [];
  return {
    hold: (answer) => void held.push(answer),
    release() {
      const answers = held;
      held = [];
      for (const answer of answers) answer();
    },
  };
}
