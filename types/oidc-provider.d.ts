// The benchmark baseline is configured with plain objects; only its constructor and listen are used.
declare module 'oidc-provider' {
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string, callback: () => void): void;
  }
}
