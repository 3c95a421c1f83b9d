import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

import { formatCredits } from '../../billing/micro-credits.ts';
import type { ImageJob } from '../../features/images/image-job-store.ts';
import { presentBalance } from '../../operator/present-operator-records.ts';
import { presentUsageRequest, type UsageQueryText } from '../../operator/usage-reports.ts';
import type { DashboardRouteDependencies } from './dashboard-routes.ts';
import { signedIn } from '../dashboard/signed-in.ts';
import { sendUsageReport, usageQuery } from './usage-admin-routes.ts';

const hidden = { hide: true };

/** The admin usage query without `account`: the dashboard reports on the signed-in account only. */
const { account: _account, ...accountUsageFields } = usageQuery.properties;
const accountUsageQuery = Type.Object(accountUsageFields, { additionalProperties: false });

const imageJobsQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })),
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

function presentImageJob(job: ImageJob) {
  return {
    id: job.id,
    status: job.state,
    model: job.model,
    created_at: new Date(job.createdAt).toISOString(),
    finished_at: job.finishedAt === null ? null : new Date(job.finishedAt).toISOString(),
    result_asset_ids: job.resultAssetIds ?? [],
    error: job.error === null ? null : { code: job.error.code, message: job.error.message },
  };
}

/**
 * The account holder's own figures: overview, usage report, request log and image jobs, each the
 * admin API's use case with the account forced to the session's.
 */
export async function dashboardAccountRoutes(
  app: FastifyInstance,
  dependencies: DashboardRouteDependencies,
): Promise<void> {
  const { operator, imageJobs } = dependencies;

  app.get('/api/dashboard/overview', { schema: hidden }, async (request) => {
    const { account } = signedIn(request);
    const now = Date.now();
    const midnight = new Date(now).setUTCHours(0, 0, 0, 0);
    const [balance, tokens, today] = await Promise.all([
      operator.accountBalance(account.id),
      operator.listTokens(account.id),
      operator.reportUsage({
        account: account.id,
        from: new Date(midnight).toISOString(),
        // A report needs from < to, even in the first millisecond of the day.
        to: new Date(Math.max(now, midnight + 1)).toISOString(),
      }),
    ]);
    return {
      account: { id: account.id, name: account.name, is_admin: account.isAdmin },
      balance: presentBalance(balance),
      tokens: tokens.length,
      spend_today: formatCredits(today.totals.cost),
      spend_today_micro: today.totals.cost,
    };
  });

  app.get(
    '/api/dashboard/usage',
    { schema: { ...hidden, querystring: accountUsageQuery } },
    async (request, reply) => {
      const query = request.query as UsageQueryText & { format?: 'json' | 'csv' };
      return sendUsageReport(
        reply,
        await operator.reportUsage({
          ...query,
          account: signedIn(request).account.id,
        }),
        query.format,
      );
    },
  );

  app.get(
    '/api/dashboard/requests',
    { schema: { ...hidden, querystring: accountUsageQuery } },
    async (request) => {
      const page = await operator.listRequests({
        ...(request.query as UsageQueryText),
        account: signedIn(request).account.id,
      });
      return { data: page.records.map(presentUsageRequest), next_cursor: page.nextCursor };
    },
  );

  if (imageJobs !== undefined) {
    app.get(
      '/api/dashboard/image-jobs',
      { schema: { ...hidden, querystring: imageJobsQuery } },
      async (request) => {
        const query = request.query as { limit?: string; after?: string };
        const limit = Math.min(100, Math.max(1, Number(query.limit ?? 20)));
        const page = await imageJobs.listJobs(signedIn(request).account.id, {
          limit,
          ...(query.after === undefined ? {} : { after: query.after }),
        });
        const last = page.jobs.at(-1);
        return {
          data: page.jobs.map(presentImageJob),
          has_more: page.hasMore,
          next_cursor: page.hasMore && last !== undefined ? last.id : null,
        };
      },
    );
  }
}
