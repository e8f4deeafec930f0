import { FlowRunners } from './registry.ts';
import { registerAgentAuthRunners } from './runners/agentauth.ts';
import { registerOAuth2Runners } from './runners/oauth2.ts';
import { registerOidcRunners } from './runners/oidc.ts';

/** Every flow runner of this build. */
export function defaultFlowRunners(claimGrantType: string): FlowRunners {
  const runners = new FlowRunners();
  registerOAuth2Runners(runners);
  registerOidcRunners(runners);
  registerAgentAuthRunners(runners, claimGrantType);
  return runners;
}
