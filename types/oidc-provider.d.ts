// oidc-provider ships no types; the bench baseline and the targeted-run tests configure it with plain
// objects and use only its constructor, listen and its request handler (Koa's callback).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string, callback: () => void): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
