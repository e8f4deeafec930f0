import { badRequest, scimError } from './errors.ts';
import type { Document } from './input.ts';
import { AGENTAUTH_SCHEMA } from './schemas.ts';

/** What the SCIM service provider asks of `/agentauth` (its registry and its revocation). */
export interface AgentDirectory {
  byClaimTokenHash(hash: string): Promise<AgentRecord | undefined>;
  byId(agentId: string): Promise<AgentRecord | undefined>;
  revoke(agentId: string): Promise<void>;
}

interface AgentRecord {
  agent_id: string;
  standing: string;
  owner_email: string | null;
}

const extensionOf = (doc: Document): Document | undefined => {
  const ext = doc[AGENTAUTH_SCHEMA];
  return ext && typeof ext === 'object' && !Array.isArray(ext) ? (ext as Document) : undefined;
};

/** The AgentAuth agent a stored Agent resource mirrors, if it mirrors one. */
export const linkedAgentId = (doc: Document): string | undefined => {
  const id = extensionOf(doc)?.agentId;
  return typeof id === 'string' ? id : undefined;
};

/**
 * An Agent created with the extension's `claimToken` (kept, like every write-only value, only as its
 * SHA-256) is linked to the AgentAuth agent that token claims: the stored resource names the agent id and
 * nothing of the token. The token is the capability that already revokes the agent at
 * `/agentauth/revoke`, so only who holds it links the agent, and may then revoke it through SCIM.
 */
export async function linkAgent(directory: AgentDirectory, doc: Document): Promise<Document> {
  const ext = extensionOf(doc);
  if (!ext) return doc;
  const proof = typeof ext.claimToken === 'string' ? ext.claimToken.replace(/^sha256:/, '') : undefined;
  if (!proof) throw badRequest('invalidValue', `${AGENTAUTH_SCHEMA}:claimToken is needed to link an AgentAuth agent`);
  const agent = await directory.byClaimTokenHash(proof);
  if (!agent || agent.standing === 'revoked')
    throw badRequest('invalidValue', 'The claim token names no live agent of /agentauth');
  return { ...doc, [AGENTAUTH_SCHEMA]: { agentId: agent.agent_id } };
}

/** A linked Agent as answered: the agent's standing now, `active` false once it is revoked. */
export async function withAgentStanding(directory: AgentDirectory, doc: Document): Promise<Document> {
  const agentId = linkedAgentId(doc);
  if (!agentId) return doc;
  const agent = await directory.byId(agentId);
  const standing = agent?.standing ?? 'revoked';
  return {
    ...doc,
    active: standing !== 'revoked',
    [AGENTAUTH_SCHEMA]: { agentId, standing, ...(agent?.owner_email ? { ownerEmail: agent.owner_email } : {}) },
  };
}

/** A linked Agent mirrors `/agentauth`: it is read-only here (its DELETE revokes the agent). */
export function refuseChangeOfLinked(doc: Document): void {
  if (linkedAgentId(doc))
    throw scimError(
      400,
      'This Agent mirrors an agent of /agentauth and is read-only; DELETE revokes the agent',
      'mutability',
    );
}
