import type { TokenBudgets } from '../../billing/token-budgets.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Authenticator } from '../../auth/authenticator.ts';
import { tokenInterfaces, type TokenInterface } from '../../auth/permissions.ts';
import { readCreditAmount } from '../read-credit-amount.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { OperatorService } from '../../operator/operator-service.ts';
import {
  presentAccountSummary,
  presentCreatedToken,
  presentCreditChange,
  presentSignInLink,
} from '../../operator/present-operator-records.ts';
import { routingAdminRoutes, type RoutingAdminDependencies } from './routing-admin-routes.ts';
import { tokenStandingRoutes } from './token-standing-routes.ts';
import {
  readTokenBudget,
  tokenBudgetSchema,
  usageAdminRoutes,
  type TokenBudgetBody,
} from './usage-admin-routes.ts';
import { LimitSetSchema, type LimitSet } from '../../config/config-schema.ts';

export interface AdminRouteDependencies {
  operator: OperatorService;
  authenticator: Authenticator;
  /** The operator credential; undefined disables the admin API. */
  adminToken: string | undefined;
  /** Reads the configuration file again and swaps what may change without a restart. */
  reloadConfiguration?: () => Promise<ConfigurationReloadAnswer>;
  /** The router and the catalog it routes, for /api/admin/routing; absent, those routes are too. */
  routing?: RoutingAdminDependencies;
  /** Tokens' spend budgets, for where a token's budget stands. */
  budgets?: TokenBudgets;
}

/** What a configuration reload reports (the gateway's `reload()`). */
export type ConfigurationReloadAnswer =
  | {
      ok: true;
      changed: object;
      restartNeeded: string[];
      unsetKeys: Array<{ provider: string; apiKeyEnv: string }>;
    }
  | { ok: false; reason: string };

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function checkAdmin(request: FastifyRequest, adminDigest: Buffer | undefined): void {
  if (adminDigest === undefined) {
    throw new ApiError(
      'admin_unauthorized',
      'The admin API is disabled: set the admin token environment variable.',
    );
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  // Equal-length digests make the comparison constant-time whatever the input length.
  if (!match || !timingSafeEqual(digest(match[1] as string), adminDigest)) {
    throw new ApiError('admin_unauthorized');
  }
}

const hidden = { hide: true };

/** The operator commands over HTTP (docs/operations.md): same use cases as the CLI. */
export async function adminRoutes(
  app: FastifyInstance,
  dependencies: AdminRouteDependencies,
): Promise<void> {
  const { operator, authenticator } = dependencies;
  const adminDigest =
    dependencies.adminToken === undefined ? undefined : digest(dependencies.adminToken);
  // onRequest: the operator credential is checked before any body is read (docs/decisions/0026).
  app.addHook('onRequest', async (request) => checkAdmin(request, adminDigest));

  app.post(
    '/api/admin/accounts',
    {
      schema: {
        ...hidden,
        body: Type.Object(
          { name: Type.String({ minLength: 1 }), is_admin: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const body = request.body as { name: string; is_admin?: boolean };
      const account = await operator.createAccount({
        name: body.name,
        isAdmin: body.is_admin ?? false,
      });
      return reply.code(201).send(account);
    },
  );

  app.get('/api/admin/accounts', { schema: hidden }, async () => ({
    data: await operator.listAccounts(),
  }));

  app.get('/api/admin/accounts/:account_id', { schema: hidden }, async (request) => {
    const { account_id: accountId } = request.params as { account_id: string };
    const { limit } = request.query as { limit?: string };
    const summary = await operator.accountSummary(
      accountId,
      limit === undefined ? 20 : Math.min(200, Math.max(1, Number(limit) || 20)),
    );
    return presentAccountSummary(summary);
  });

  app.post(
    '/api/admin/accounts/:account_id/credits',
    {
      schema: {
        ...hidden,
        body: Type.Object(
          {
            amount: Type.String({
              minLength: 1,
              description: 'Decimal credits, e.g. "10" or "-2.5".',
            }),
            reason: Type.String({ minLength: 1 }),
            kind: Type.Optional(Type.Union([Type.Literal('grant'), Type.Literal('adjustment')])),
            allow_negative: Type.Optional(
              Type.Boolean({
                description:
                  'An adjustment that would take the balance below zero is refused unless true.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { account_id: accountId } = request.params as { account_id: string };
      const body = request.body as {
        amount: string;
        reason: string;
        kind?: 'grant' | 'adjustment';
        allow_negative?: boolean;
      };
      const amount = readCreditAmount(body.amount);
      const result = await operator.changeCredits({
        accountId,
        amount,
        reason: body.reason,
        kind: body.kind ?? (amount < 0 ? 'adjustment' : 'grant'),
        allowNegative: body.allow_negative === true,
      });
      return reply.code(201).send(presentCreditChange(result));
    },
  );

  // docs/decisions/0168: the one way into the dashboard; the answer carries the one-time secret.
  app.post(
    '/api/admin/accounts/:account_id/sign-in-links',
    { schema: hidden },
    async (request, reply) => {
      const { account_id: accountId } = request.params as { account_id: string };
      const link = await operator.createSignInLink(accountId);
      return reply.code(201).header('cache-control', 'no-store').send(presentSignInLink(link));
    },
  );

  app.put(
    '/api/admin/accounts/:account_id/storage-quota',
    {
      schema: {
        ...hidden,
        body: Type.Object(
          {
            quota_bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
              description: 'Bytes; null returns the account to storage.quotaBytes.',
            }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { account_id: accountId } = request.params as { account_id: string };
      const { quota_bytes: quotaBytes } = request.body as { quota_bytes: number | null };
      const account = await operator.setStorageQuota(accountId, quotaBytes);
      return { account_id: account.id, quota_bytes: quotaBytes };
    },
  );

  app.post(
    '/api/admin/accounts/:account_id/tokens',
    {
      schema: {
        ...hidden,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1 }),
            permissions: Type.Optional(Type.Array(Type.String())),
            interface: Type.Optional(
              Type.Union(tokenInterfaces.map((value) => Type.Literal(value))),
            ),
            expires_at: Type.Optional(Type.String({ format: 'date-time' })),
            allowed_models: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
            budget: Type.Optional(tokenBudgetSchema),
            limits: Type.Optional(Type.Union([LimitSetSchema, Type.Null()])),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { account_id: accountId } = request.params as { account_id: string };
      const body = request.body as {
        name: string;
        permissions?: string[];
        interface?: TokenInterface;
        expires_at?: string;
        allowed_models?: string[];
        budget?: TokenBudgetBody;
        limits?: LimitSet | null;
      };
      const expiresAt = body.expires_at === undefined ? null : Date.parse(body.expires_at);
      if (expiresAt !== null && Number.isNaN(expiresAt))
        throw new ApiError('invalid_request', 'expires_at is not a date.');
      const created = await operator.createToken({
        accountId,
        name: body.name,
        ...(body.permissions !== undefined ? { permissions: body.permissions } : {}),
        ...(body.interface !== undefined ? { interface: body.interface } : {}),
        expiresAt,
        allowedModels: body.allowed_models ?? null,
        budget: body.budget === undefined ? null : readTokenBudget(body.budget),
        limits: body.limits ?? null,
      });
      return reply.code(201).send(presentCreatedToken(created));
    },
  );

  app.get('/api/admin/tokens', { schema: hidden }, async (request) => {
    const { account_id: accountId } = request.query as { account_id?: string };
    return { data: await operator.listTokens(accountId) };
  });

  const { reloadConfiguration } = dependencies;
  if (reloadConfiguration !== undefined) {
    app.post('/api/admin/config/reload', { schema: hidden }, async () => {
      const outcome = await reloadConfiguration();
      // The file is the operator's request here: a refused one is answered like a refused body.
      if (!outcome.ok) {
        throw new ApiError(
          'invalid_request',
          `The configuration was not reloaded; the running one stays. ${outcome.reason}`,
        );
      }
      return {
        reloaded: true,
        changed: outcome.changed,
        restart_needed: outcome.restartNeeded,
        unset_key_variables: outcome.unsetKeys.map(({ provider, apiKeyEnv }) => ({
          provider,
          api_key_env: apiKeyEnv,
        })),
      };
    });
  }

  if (dependencies.routing !== undefined)
    await app.register(routingAdminRoutes, dependencies.routing);
  await app.register(usageAdminRoutes, { operator, authenticator });
  await app.register(tokenStandingRoutes, {
    operator,
    ...(dependencies.budgets !== undefined ? { budgets: dependencies.budgets } : {}),
  });

  app.post('/api/admin/tokens/:token_id/disable', { schema: hidden }, async (request) => {
    const { token_id: tokenId } = request.params as { token_id: string };
    const apiKey = await operator.disableToken(tokenId);
    authenticator.forget(apiKey.id);
    return apiKey;
  });
}
