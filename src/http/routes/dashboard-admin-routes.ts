import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

import { readCreditAmount } from '../read-credit-amount.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { readMainMetrics } from '../../dashboard/read-main-metrics.ts';
import { presentBalance, presentLedgerEntry } from '../../operator/present-operator-records.ts';
import { type UsageQueryText } from '../../operator/usage-reports.ts';
import { describeRouting } from '../../routing/describe-routing.ts';
import { presentRoutingOverview } from '../present-routing-overview.ts';
import type { DashboardRouteDependencies } from './dashboard-routes.ts';
import { signedIn } from '../dashboard/signed-in.ts';
import { sendUsageReport, usageQuery } from './usage-admin-routes.ts';

const hidden = { hide: true };

const searchQuery = Type.Object(
  { q: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);

const creditChange = Type.Object(
  {
    kind: Type.Union([Type.Literal('grant'), Type.Literal('adjust')]),
    amount: Type.String({ minLength: 1, description: 'Decimal credits; negative for adjust.' }),
    reason: Type.String({ minLength: 1 }),
    allow_negative: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ledgerQuery = Type.Object(
  { limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })) },
  { additionalProperties: false },
);

/** Case-insensitive: does the text hold the query? An absent or empty query matches all. */
function matches(query: string | undefined, ...texts: string[]): boolean {
  const needle = query?.trim().toLowerCase() ?? '';
  return needle === '' || texts.some((text) => text.toLowerCase().includes(needle));
}

/**
 * The operator's side of the dashboard, for accounts with `is_admin`: the admin API's use cases
 * behind the session instead of the admin token.
 */
export async function dashboardAdminRoutes(
  app: FastifyInstance,
  dependencies: DashboardRouteDependencies,
): Promise<void> {
  const { operator, routing } = dependencies;
  // Registered as its own plugin: this hook runs on the routes below only.
  app.addHook('onRequest', async (request) => {
    if (!signedIn(request).account.isAdmin) throw new ApiError('dashboard_forbidden');
  });

  app.get(
    '/api/dashboard/admin/accounts',
    { schema: { ...hidden, querystring: searchQuery } },
    async (request) => {
      const { q } = request.query as { q?: string };
      const accounts = (await operator.listAccounts()).filter((account) =>
        matches(q, account.id, account.name),
      );
      return {
        data: await Promise.all(
          accounts.map(async (account) => ({
            id: account.id,
            name: account.name,
            is_admin: account.isAdmin,
            balance: presentBalance(await operator.accountBalance(account.id)),
          })),
        ),
      };
    },
  );

  app.post(
    '/api/dashboard/admin/accounts/:account/credits',
    { schema: { ...hidden, body: creditChange } },
    async (request, reply) => {
      const { account } = request.params as { account: string };
      const body = request.body as {
        kind: 'grant' | 'adjust';
        amount: string;
        reason: string;
        allow_negative?: boolean;
      };
      const amount = readCreditAmount(body.amount);
      const result = await operator.changeCredits({
        accountId: account,
        amount,
        reason: body.reason,
        kind: body.kind === 'grant' ? 'grant' : 'adjustment',
        allowNegative: body.allow_negative === true,
      });
      return reply
        .code(201)
        .send({ ...presentLedgerEntry(result.entry), balance: presentBalance(result.balance) });
    },
  );

  app.get(
    '/api/dashboard/admin/accounts/:account/ledger',
    { schema: { ...hidden, querystring: ledgerQuery } },
    async (request) => {
      const { account } = request.params as { account: string };
      const { limit } = request.query as { limit?: string };
      const summary = await operator.accountSummary(
        account,
        Math.min(200, Math.max(1, Number(limit ?? 50))),
      );
      return { data: summary.entries.map(presentLedgerEntry) };
    },
  );

  app.get(
    '/api/dashboard/admin/tokens',
    { schema: { ...hidden, querystring: searchQuery } },
    async (request) => {
      const { q } = request.query as { q?: string };
      const needle = q?.trim().toLowerCase() ?? '';
      const tokens = (await operator.listTokens()).filter(
        (token) =>
          needle === '' ||
          token.id.toLowerCase().startsWith(needle) ||
          token.name.toLowerCase().includes(needle),
      );
      return { data: tokens };
    },
  );

  app.get(
    '/api/dashboard/admin/usage',
    { schema: { ...hidden, querystring: usageQuery } },
    async (request, reply) => {
      const query = request.query as UsageQueryText & { account?: string; format?: 'json' | 'csv' };
      return sendUsageReport(reply, await operator.reportUsage(query), query.format);
    },
  );

  if (routing !== undefined) {
    app.get('/api/dashboard/admin/routing', { schema: hidden }, async () =>
      presentRoutingOverview(describeRouting(routing.catalog.all(), routing.router)),
    );
  }

  app.get('/api/dashboard/admin/metrics', { schema: hidden }, async () =>
    readMainMetrics(dependencies.metrics),
  );
}
