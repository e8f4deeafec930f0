import { AgentRegistry } from '../../../projections/agent-registry.ts';
import { CredentialStatus } from '../../../projections/credential-status.ts';
import { LiveSsfStreams } from '../../../projections/live-ssf-streams.ts';
import { RevocationFeed } from '../../../projections/revocation-feed.ts';
import { RevokedAccessTokens } from '../../../projections/revoked-access-tokens.ts';
import { RunIndex } from '../../../projections/run-index.ts';
import { ScimResources } from '../../../projections/scim-resources.ts';
import type { Projection } from '../../../projections/types.ts';
import { MAIN_PROJECTIONS } from './routes.ts';

/** Every read model the main origin keeps in its log's database. */
export function createMainProjections() {
  const registry = new AgentRegistry();
  const feed = new RevocationFeed();
  const revokedAccessTokens = new RevokedAccessTokens();
  const runIndex = new RunIndex();
  const credentialStatus = new CredentialStatus();
  const liveSsfStreams = new LiveSsfStreams();
  const scimResources = new ScimResources();
  const all: Projection[] = [
    registry,
    feed,
    revokedAccessTokens,
    runIndex,
    credentialStatus,
    liveSsfStreams,
    scimResources,
    ...MAIN_PROJECTIONS.map((make) => make()),
  ];
  return { registry, feed, revokedAccessTokens, runIndex, credentialStatus, liveSsfStreams, scimResources, all };
}
