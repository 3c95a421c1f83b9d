import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';

import { tokenInterfaces, type TokenInterface } from '../../auth/permissions.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { LimitSetSchema, type LimitSet } from '../../config/config-schema.ts';
import type { ApiKeyView } from '../../operator/operator-service.ts';
import {
  presentBudgetStanding,
  presentCreatedToken,
} from '../../operator/present-operator-records.ts';
import type { DashboardRouteDependencies } from './dashboard-routes.ts';
import { signedIn } from '../dashboard/signed-in.ts';
import {
  readTokenBudget,
  readTokenChanges,
  tokenBudgetSchema,
  tokenChanges,
  type TokenBudgetBody,
  type TokenChangesBody,
} from './usage-admin-routes.ts';

const hidden = { hide: true };

const newToken = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    interface: Type.Optional(Type.Union(tokenInterfaces.map((value) => Type.Literal(value)))),
    allowed_models: Type.Optional(
      Type.Union([Type.Array(Type.String({ minLength: 1 })), Type.Null()]),
    ),
    expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    budget: Type.Optional(tokenBudgetSchema),
    limits: Type.Optional(Type.Union([LimitSetSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

interface NewTokenBody {
  name: string;
  interface?: TokenInterface;
  allowed_models?: string[] | null;
  expires_at?: string | null;
  budget?: TokenBudgetBody;
  limits?: LimitSet | null;
}

/** The admin API's token changes, and `disabled` to switch a token off or on again. */
const dashboardTokenChanges = Type.Object(
  { ...tokenChanges.properties, disabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

const tokenParams = Type.Object({ token_id: Type.String({ minLength: 1 }) });

/**
 * The signed-in account's client tokens: the operator's token use cases, each refused as unknown
 * (404) for a token of another account. A secret is in the answer of create and rotate only.
 */
export async function dashboardTokenRoutes(
  app: FastifyInstance,
  dependencies: DashboardRouteDependencies,
): Promise<void> {
  const { operator, authenticator, budgets } = dependencies;

  /** The token of that id when it is the signed-in account's; 404 otherwise, as for none. */
  async function ownToken(request: FastifyRequest): Promise<string> {
    const { token_id: tokenId } = request.params as { token_id: string };
    const record = await operator.requireToken(tokenId);
    if (record.accountId !== signedIn(request).account.id) {
      throw new ApiError('not_found', `No token "${tokenId}".`);
    }
    return record.id;
  }

  async function withStanding(apiKey: ApiKeyView) {
    const standing = apiKey.budget === null ? undefined : await budgets?.standing(apiKey);
    return {
      ...apiKey,
      budget_standing: standing === undefined ? null : presentBudgetStanding(standing),
    };
  }

  app.get('/api/dashboard/tokens', { schema: hidden }, async (request) => {
    const tokens = await operator.listTokens(signedIn(request).account.id);
    return { data: await Promise.all(tokens.map(withStanding)) };
  });

  app.post(
    '/api/dashboard/tokens',
    { schema: { ...hidden, body: newToken } },
    async (request, reply) => {
      const body = request.body as NewTokenBody;
      const expiresAt =
        body.expires_at === undefined || body.expires_at === null
          ? null
          : Date.parse(body.expires_at);
      if (expiresAt !== null && Number.isNaN(expiresAt)) {
        throw new ApiError('invalid_request', 'expires_at is not a date.');
      }
      const created = await operator.createToken({
        accountId: signedIn(request).account.id,
        name: body.name,
        ...(body.interface !== undefined ? { interface: body.interface } : {}),
        expiresAt,
        allowedModels: body.allowed_models ?? null,
        budget: body.budget === undefined ? null : readTokenBudget(body.budget),
        limits: body.limits ?? null,
      });
      return reply.code(201).send(presentCreatedToken(created));
    },
  );

  app.patch(
    '/api/dashboard/tokens/:token_id',
    { schema: { ...hidden, params: tokenParams, body: dashboardTokenChanges } },
    async (request) => {
      const tokenId = await ownToken(request);
      const { disabled, ...rest } = request.body as TokenChangesBody & { disabled?: boolean };
      // Checked before anything is written, so a refused change leaves the token as it was.
      const changes = readTokenChanges(rest);
      let apiKey = await operator.updateToken(tokenId, changes);
      if (disabled === true) apiKey = await operator.disableToken(tokenId);
      if (disabled === false) apiKey = await operator.enableToken(tokenId);
      authenticator.forget(apiKey.id);
      return withStanding(apiKey);
    },
  );

  app.post(
    '/api/dashboard/tokens/:token_id/rotate',
    { schema: { ...hidden, params: tokenParams } },
    async (request, reply) => {
      const rotated = await operator.rotateToken(await ownToken(request));
      authenticator.forget(rotated.apiKey.id);
      return reply.code(201).send(presentCreatedToken(rotated));
    },
  );

  app.delete(
    '/api/dashboard/tokens/:token_id',
    { schema: { ...hidden, params: tokenParams } },
    async (request) => {
      const deleted = await operator.deleteToken(await ownToken(request));
      authenticator.forget(deleted.id);
      return { deleted: true, api_key: deleted };
    },
  );
}
