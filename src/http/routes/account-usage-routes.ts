import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Authenticator, Principal } from '../../auth/authenticator.ts';
import { formatCredits } from '../../billing/micro-credits.ts';
import type { TokenBudgets } from '../../billing/token-budgets.ts';
import type { OperatorService } from '../../operator/operator-service.ts';
import { presentBalance } from '../../operator/present-operator-records.ts';
import {
  presentUsageReport,
  presentUsageRequest,
  renderUsageCsv,
  type UsageQueryText,
} from '../../operator/usage-reports.ts';
import { requireToken } from '../require-token.ts';

export interface AccountUsageDependencies {
  operator: OperatorService;
  authenticator: Authenticator;
  /** Where each token's budget stands, calls in flight counted. */
  budgets?: TokenBudgets;
}

const hidden = { hide: true };

const accountUsageQuery = Type.Object(
  {
    token: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    from: Type.Optional(Type.String()),
    to: Type.Optional(Type.String()),
    group_by: Type.Optional(Type.String()),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
    status: Type.Optional(Type.String()),
    limit: Type.Optional(Type.String()),
    cursor: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/**
 * The account holder's own view (docs/operations.md): its balance, its usage report and request
 * log, always of the account the presented token belongs to whatever the query names. Internal
 * routes under /api/, hidden from the client API's contract like every /api/ route.
 */
export async function accountUsageRoutes(
  app: FastifyInstance,
  dependencies: AccountUsageDependencies,
): Promise<void> {
  const { operator, authenticator, budgets } = dependencies;
  app.addHook('onRequest', requireToken(authenticator, null));
  const ownAccount = (principal: Principal | undefined) => (principal as Principal).account;

  app.get(
    '/api/usage',
    { schema: { ...hidden, querystring: accountUsageQuery } },
    async (request, reply) => {
      const query = request.query as UsageQueryText & { format?: 'json' | 'csv' };
      const report = await operator.reportUsage({
        ...query,
        account: ownAccount(request.principal).id,
      });
      if (query.format === 'csv') {
        return reply.type('text/csv; charset=utf-8').send(renderUsageCsv(report));
      }
      return presentUsageReport(report);
    },
  );

  app.get(
    '/api/usage/requests',
    { schema: { ...hidden, querystring: accountUsageQuery } },
    async (request) => {
      const page = await operator.listRequests({
        ...(request.query as UsageQueryText),
        account: ownAccount(request.principal).id,
      });
      return { data: page.records.map(presentUsageRequest), next_cursor: page.nextCursor };
    },
  );

  app.get('/api/balance', { schema: hidden }, async (request) => {
    const { account, apiKey } = request.principal as Principal;
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
        budget:
          budget === undefined
            ? null
            : {
                period: budget.budget.period,
                amount: formatCredits(budget.budget.amount),
                amount_micro: budget.budget.amount,
                spent: formatCredits(budget.spent),
                spent_micro: budget.spent,
                reserved_micro: budget.reserved,
                remaining: formatCredits(budget.remaining),
                remaining_micro: budget.remaining,
                period_start: new Date(budget.periodStart).toISOString(),
                resets_at: new Date(budget.resetsAt).toISOString(),
              },
        limits: apiKey.limits,
        allowed_models: apiKey.allowedModels,
        expires_at: apiKey.expiresAt === null ? null : new Date(apiKey.expiresAt).toISOString(),
      },
    };
  });
}
