import { OAuthError } from '../../../services/errors.ts';
import { WALLET_ENDPOINTS } from '../../../services/wallet/documents.ts';
import type { WalletRoutes } from './context.ts';

/**
 * The wallet endpoints of the specification whose capability is not in this build yet (issuance,
 * import, presentation): they answer 501 `not_implemented`, as the recipes say, rather than 404.
 */
export const notYetBuiltRoutes: WalletRoutes = (app) => {
  for (const endpoint of WALLET_ENDPOINTS.filter((e) => !e.available)) {
    app.route({
      method: endpoint.method,
      url: endpoint.path,
      schema: { summary: `${endpoint.purpose} (not in this build yet)` },
      handler: async () => {
        throw new OAuthError('not_implemented', `${endpoint.method} ${endpoint.path} is part of the wallet harness but not in this build yet`, 501);
      },
    });
  }
};
