import { FlowRunners } from './registry.ts';
import { registerAgentAuthRunners } from './runners/agentauth.ts';
import { registerOAuth2Runners } from './runners/oauth2.ts';
import { registerOidcRunners } from './runners/oidc.ts';
import { registerOid4vciRunners } from './runners/oid4vci.ts';
import { registerOid4vpRunners } from './runners/oid4vp.ts';
import { registerOid4vpBrowserRunners } from './runners/oid4vp-browser.ts';
import { registerSpiffeRunners } from './runners/spiffe.ts';
import { registerSsfRunners } from './runners/ssf.ts';
import { registerMcpRunners } from './runners/mcp.ts';
import { registerTargetRunners } from './targets/runners.ts';
import { registerScimRunners } from './runners/scim.ts';
import { registerScimCheckServer } from './targets/scim-check-server.ts';
import { registerSamlLab, type LabKeys } from './runners/saml-lab.ts';
import { registerSamlRunners, registerSamlTargetRunners } from './runners/saml.ts';

export interface FlowRunnerOptions {
  /** Base URL of the workload identity service when the deployment runs it in full mode. */
  spiffeBaseUrl?: string;
  /** Our SAML IdP's identity and key, with which `saml/attack-lab` mints its Responses. */
  samlLab?: LabKeys;
}

/** Every flow runner of this build. */
export function defaultFlowRunners(claimGrantType: string, options: FlowRunnerOptions = {}): FlowRunners {
  const runners = new FlowRunners();
  registerOAuth2Runners(runners);
  registerOidcRunners(runners);
  registerAgentAuthRunners(runners, claimGrantType);
  registerOid4vciRunners(runners);
  registerOid4vpRunners(runners);
  registerOid4vpBrowserRunners(runners);
  registerSsfRunners(runners);
  registerMcpRunners(runners);
  registerScimRunners(runners);
  registerScimCheckServer(runners);
  if (options.samlLab) registerSamlLab(runners, options.samlLab);
  registerSamlRunners(runners);
  if (options.samlLab) registerSamlLab(runners, options.samlLab);
  if (options.spiffeBaseUrl) registerSpiffeRunners(runners, options.spiffeBaseUrl);
  return runners;
}

/** The SPIFFE flows are runnable where the deployment enables the workload identity service's full mode. */
export function flowRunnerOptions(
  spiffeEnabled: boolean,
  showcaseBaseUrl: string,
  samlLab?: LabKeys,
): FlowRunnerOptions {
  return { ...(spiffeEnabled ? { spiffeBaseUrl: showcaseBaseUrl } : {}), ...(samlLab ? { samlLab } : {}) };
}

/** The flows that run against an authorization server of the user's own (`{"target": {...}}`). */
export function targetFlowRunners(samlLab?: LabKeys): FlowRunners {
  const runners = new FlowRunners();
  registerSamlTargetRunners(runners);
  if (samlLab) registerSamlLab(runners, samlLab);
  registerTargetRunners(runners);
  registerScimCheckServer(runners);
  return runners;
}
