/** Overridden demo secrets, from the configuration: user passwords by user id, client secrets by client id. */
export interface DemoOverrides {
  passwords: ReadonlyMap<string, string>;
  clientSecrets: ReadonlyMap<string, string>;
}
