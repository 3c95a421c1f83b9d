import type { FastifyInstance } from 'fastify';
import type { TokenBudgets } from '../../billing/token-budgets.ts';
import type { OperatorService } from '../../operator/operator-service.ts';
import { presentBalance, presentBudgetStanding } from '../../operator/present-operator-records.ts';

export interface TokenStandingDependencies {
  operator: OperatorService;
  /** Where each token's budget stands, calls in flight counted. */
  budgets?: TokenBudgets;
}

const hidden = { hide: true };

/**
 * Where one token stands (docs/operations.md), for the operator: its account's balance, its
 * budget with what it has spent, holds and has left this period, its limits, models and expiry.
 * Registered inside the admin routes, behind the admin credential: a client token reads no
 * account API of its own.
 */
export async function tokenStandingRoutes(
  app: FastifyInstance,
  dependencies: TokenStandingDependencies,
): Promise<void> {
  const { operator, budgets } = dependencies;
  app.get('/api/admin/tokens/:token_id/standing', { schema: hidden }, async (request) => {
    const { token_id: tokenId } = request.params as { token_id: string };
    const apiKey = await operator.requireToken(tokenId);
    const account = await operator.requireAccount(apiKey.accountId);
    const [balance, budget] = await Promise.all([
      operator.accountBalance(account.id),
      budgets?.standing(apiKey),
    ]);
    return {
      account: { id: account.id, name: account.name },
      balance: presentBalance(balance),
      token: {
        id: apiKey.id,
        name: apiKey.name,
        budget: budget === undefined ? null : presentBudgetStanding(budget),
        limits: apiKey.limits,
        allowed_models: apiKey.allowedModels,
        expires_at: apiKey.expiresAt === null ? null : new Date(apiKey.expiresAt).toISOString(),
      },
    };
  });
}
