import { notFound } from '../../../services/errors.ts';
import { subjectLabel, type WalletSession } from '../../../services/wallet/sessions.ts';
import { jsonObject } from '../response-schemas.ts';
import type { WalletContext, WalletRoutes } from './context.ts';
import { requestSession } from './request-session.ts';

/** `GET /api/session` (decisions section 10). */
function sessionView(ctx: WalletContext, session: WalletSession) {
  return {
    wallet_session_id: session.id,
    wallet_subject: session.did,
    wallet_subject_label: subjectLabel(ctx.settings.defaultSubject, session.id),
    wallet_did_method: ctx.settings.didMethod,
    wallet_key_thumbprint: session.holder.kid,
    device_key_thumbprint: ctx.deviceKey.pair.kid,
    device_key_persistent: ctx.deviceKey.persistent,
    haip_enabled: ctx.settings.haipEnabled,
    expires_in: ctx.sessions.expiresIn(session),
    active_credential_id: session.activeCredentialId,
    credentials: [...session.credentials.values()].map((c) => ({
      ...c,
      active: c.credential_id === session.activeCredentialId,
    })),
  };
}

const errorResponse = { $ref: 'OAuthError#' };

export const sessionRoutes: WalletRoutes = (app, ctx) => {
  app.get(
    '/api/session',
    {
      schema: {
        summary: 'The session: holder DID and keys, device key, credentials (created when new)',
        response: { 400: errorResponse },
      },
    },
    async (request, reply) => sessionView(ctx, await requestSession(ctx, request, reply)),
  );

  app.get(
    '/api/credentials',
    {
      schema: {
        summary:
          "The session's credentials, each with its current status (fetched through the guard, kept for the list's ttl)",
        response: {
          200: jsonObject(
            'credentials: each stored credential with status valid, suspended, revoked, unavailable or none',
            {
              credentials: { type: 'array', items: { type: 'object', additionalProperties: true } },
            },
          ),
          400: errorResponse,
        },
      },
    },
    async (request, reply) => {
      const session = await requestSession(ctx, request, reply);
      const credentials = [];
      for (const c of session.credentials.values())
        credentials.push({
          ...c,
          active: c.credential_id === session.activeCredentialId,
          status: await ctx.credentialStatus.of(session, c),
        });
      return { wallet_session_id: session.id, credentials };
    },
  );

  // did:web holder identifiers resolve here (did:web:<wallet host>:wallet:<thumbprint>).
  app.get(
    '/wallet/:thumbprint/did.json',
    {
      schema: {
        summary: 'DID document of a session holder key (did:web)',
        params: { type: 'object', properties: { thumbprint: { type: 'string', maxLength: 64 } } },
      },
    },
    async (request, reply) => {
      const session = ctx.sessions.byThumbprint((request.params as { thumbprint: string }).thumbprint);
      if (!session?.didDocument) throw notFound('No live session has this did:web key');
      return reply.type('application/did+json').send(session.didDocument);
    },
  );
};
