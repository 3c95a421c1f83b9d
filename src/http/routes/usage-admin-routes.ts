import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Authenticator } from '../../auth/authenticator.ts';
import type { ApiKeyChanges } from '../../auth/api-key-store.ts';
import { budgetPeriods, type TokenBudget } from '../../billing/token-budget.ts';
import { parseCredits } from '../../billing/micro-credits.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { LimitSetSchema, type LimitSet } from '../../config/config-schema.ts';
import type { OperatorService } from '../../operator/operator-service.ts';
import { presentCreatedToken } from '../../operator/present-operator-records.ts';
import {
  presentUsageReport,
  presentUsageRequest,
  renderUsageCsv,
  type UsageQueryText,
  type UsageReport,
} from '../../operator/usage-reports.ts';

export interface UsageAdminDependencies {
  operator: OperatorService;
  authenticator: Authenticator;
}

const hidden = { hide: true };

/** A usage report as JSON, or as CSV when the query asks for it. */
export function sendUsageReport(
  reply: FastifyReply,
  report: UsageReport,
  format: 'json' | 'csv' | undefined,
) {
  if (format === 'csv') return reply.type('text/csv; charset=utf-8').send(renderUsageCsv(report));
  return reply.send(presentUsageReport(report));
}

/** Query values are strings; the use case parses and checks them (usage-reports.ts). */
export const usageQuery = Type.Object(
  {
    account: Type.Optional(
      Type.String({ description: 'Account id or name; every account when absent.' }),
    ),
    token: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    from: Type.Optional(Type.String({ description: 'ISO date or date-time, inclusive.' })),
    to: Type.Optional(Type.String({ description: 'ISO date or date-time, exclusive.' })),
    group_by: Type.Optional(
      Type.String({ description: 'Comma-separated: token, model, deployment, day, hour.' }),
    ),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
    status: Type.Optional(Type.String()),
    limit: Type.Optional(Type.String()),
    cursor: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** A token's budget as the admin API takes it: decimal credits per period, or null for none. */
export const tokenBudgetSchema = Type.Union([
  Type.Object(
    {
      amount: Type.String({ minLength: 1, description: 'Decimal credits per period.' }),
      period: Type.Union(budgetPeriods.map((period) => Type.Literal(period))),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

export type TokenBudgetBody = { amount: string; period: (typeof budgetPeriods)[number] } | null;

/** The budget in micro-credits; 400 for an amount that is not a positive number of credits. */
export function readTokenBudget(body: TokenBudgetBody): TokenBudget | null {
  if (body === null) return null;
  const amount = parseCredits(body.amount);
  if (amount === undefined || amount <= 0) {
    throw new ApiError(
      'invalid_request',
      'budget.amount must be a positive decimal number of credits.',
    );
  }
  return { amount, period: body.period };
}

export const tokenChanges = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    allowed_models: Type.Optional(
      Type.Union([Type.Array(Type.String({ minLength: 1 })), Type.Null()]),
    ),
    expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    budget: Type.Optional(tokenBudgetSchema),
    limits: Type.Optional(Type.Union([LimitSetSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

export interface TokenChangesBody {
  name?: string;
  allowed_models?: string[] | null;
  expires_at?: string | null;
  budget?: TokenBudgetBody;
  limits?: LimitSet | null;
}

/** The body of a token change in the store's terms; amounts and dates checked here. */
export function readTokenChanges(body: TokenChangesBody): ApiKeyChanges {
  const changes: ApiKeyChanges = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.allowed_models !== undefined) changes.allowedModels = body.allowed_models;
  if (body.expires_at !== undefined) {
    const expiresAt = body.expires_at === null ? null : Date.parse(body.expires_at);
    if (expiresAt !== null && Number.isNaN(expiresAt)) {
      throw new ApiError('invalid_request', 'expires_at is not a date.');
    }
    changes.expiresAt = expiresAt;
  }
  if (body.budget !== undefined) changes.budget = readTokenBudget(body.budget);
  if (body.limits !== undefined) changes.limits = body.limits;
  return changes;
}

/**
 * Usage reports and the request log over every account or one, and the token controls (rename,
 * limits, budget, rotate, delete): docs/operations.md. Registered inside the admin routes, whose
 * hook checks the operator credential.
 */
export async function usageAdminRoutes(
  app: FastifyInstance,
  dependencies: UsageAdminDependencies,
): Promise<void> {
  const { operator, authenticator } = dependencies;

  app.get(
    '/api/admin/usage',
    { schema: { ...hidden, querystring: usageQuery } },
    async (request, reply) => {
      const query = request.query as UsageQueryText & { account?: string; format?: 'json' | 'csv' };
      return sendUsageReport(reply, await operator.reportUsage(query), query.format);
    },
  );

  app.get(
    '/api/admin/usage/requests',
    { schema: { ...hidden, querystring: usageQuery } },
    async (request) => {
      const page = await operator.listRequests(
        request.query as UsageQueryText & { account?: string },
      );
      return { data: page.records.map(presentUsageRequest), next_cursor: page.nextCursor };
    },
  );

  app.patch(
    '/api/admin/tokens/:token_id',
    { schema: { ...hidden, body: tokenChanges } },
    async (request) => {
      const { token_id: tokenId } = request.params as { token_id: string };
      const apiKey = await operator.updateToken(
        tokenId,
        readTokenChanges(request.body as TokenChangesBody),
      );
      authenticator.forget(apiKey.id);
      return apiKey;
    },
  );

  app.post('/api/admin/tokens/:token_id/rotate', { schema: hidden }, async (request, reply) => {
    const { token_id: tokenId } = request.params as { token_id: string };
    const rotated = await operator.rotateToken(tokenId);
    authenticator.forget(rotated.apiKey.id);
    return reply.code(201).send(presentCreatedToken(rotated));
  });

  app.delete('/api/admin/tokens/:token_id', { schema: hidden }, async (request) => {
    const { token_id: tokenId } = request.params as { token_id: string };
    const deleted = await operator.deleteToken(tokenId);
    authenticator.forget(deleted.id);
    return { deleted: true, api_key: deleted };
  });
}
