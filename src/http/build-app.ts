import { randomHex } from '../shared/random-hex.ts';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import websocket from '@fastify/websocket';
import type { Authenticator } from '../auth/authenticator.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import { ApiError } from '../canonical/generation-error.ts';
import type { OperatorService } from '../operator/operator-service.ts';
import type { Router } from '../routing/router.ts';
import { answerClientError } from './answer-client-error.ts';
import { BodyByteBudget } from './body-byte-budget.ts';
import { UnusedConnections } from './close-unused-connections.ts';
import { deferContinue } from './defer-continue.ts';
import { errorShapeForUrl } from './error-shape.ts';
import { createHttpMetrics, installHttpMetrics, type HttpMetrics } from './http-metrics.ts';
import {
  answerFrameworkError,
  installErrorHandling,
  maxPathParameterLength,
} from './install-error-handling.ts';
import { installJsonBodyParser } from './read-json-body.ts';
import { logSerializers } from './log-serializers.ts';
import { hasCredentialInUrl } from './redact-url.ts';
import { adminRoutes, type AdminRouteDependencies } from './routes/admin-routes.ts';
import { healthRoutes } from './routes/health-routes.ts';
import { modelRoutes } from './routes/model-routes.ts';
import { sendError } from './send-error.ts';
import type { TokenBudgets } from '../billing/token-budgets.ts';

export interface AppDependencies {
  catalog: ModelCatalog;
  authenticator: Authenticator;
  operator: OperatorService;
  adminToken: string | undefined;
  /** Reloads the configuration file (POST /api/admin/config/reload); absent, the route is too. */
  reloadConfiguration?: AdminRouteDependencies['reloadConfiguration'];
  /** The router (GET /api/admin/routing and its commands); absent, those routes are too. */
  router?: Router;
  checkReady(): Promise<void>;
  /** Tokens' spend budgets, for the operator's view of where a token's budget stands. */
  budgets?: TokenBudgets;
  /** Registers further route plugins (generation, features) inside the app. */
  routes?: Array<(app: FastifyInstance) => Promise<void>>;
  metrics?: HttpMetrics;
}

export interface AppOptions {
  bodyLimitBytes: number;
  /** Longest time to receive a whole request, headers and body; 0 disables (docs/operations.md). */
  requestReceiveTimeoutMs?: number;
  /** Bytes of request bodies being received at once, across all requests (docs/operations.md). */
  bodiesInFlightLimitBytes?: number;
  /** pino options or an instance; `false` for none. */
  logger: FastifyServerOptions['logger'];
  /** Collect process metrics (only one app per process should). */
  processMetrics?: boolean;
}

export const contractVersion = '1.0.0';

/** Defaults of `server.requestReceiveTimeoutMs` and `server.bodiesInFlightLimitBytes`. */
export const defaultRequestReceiveTimeoutMs = 60_000;
export const defaultBodiesInFlightLimitBytes = 256 * 1024 * 1024;

/**
 * Node checks the request timeout on an interval (30 s by default), so a timeout fires up to one
 * interval late: check often enough that it fires within about a second, or a tenth of a short
 * timeout. The headers timeout may not exceed the request timeout.
 */
function receiveTimeoutHttpOptions(timeoutMs: number) {
  if (timeoutMs === 0) return { requestTimeout: 0, headersTimeout: 60_000 };
  return {
    requestTimeout: timeoutMs,
    headersTimeout: Math.min(60_000, timeoutMs),
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(timeoutMs / 10))),
  };
}

/** pino redaction: credential headers never reach a log line, whatever a serializer does. */
export const redactedLogPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  // The dashboard's session cookie and CSRF token (docs/decisions/0168).
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'headers.cookie',
  'headers["x-csrf-token"]',
  // @fastify/multipart logs the options it hands busboy, request headers included, at trace.
  'busboyOptions.headers.authorization',
  'busboyOptions.headers["x-api-key"]',
];

/** The app factory: builds and never listens; tests use `inject()`. */
export async function buildApp(
  dependencies: AppDependencies,
  options: AppOptions,
): Promise<FastifyInstance> {
  const logger =
    options.logger === false || options.logger === undefined
      ? false
      : {
          ...(typeof options.logger === 'object' ? options.logger : {}),
          redact: redactedLogPaths,
          serializers: logSerializers,
        };
  const receiveTimeoutMs = options.requestReceiveTimeoutMs ?? defaultRequestReceiveTimeoutMs;
  const app = Fastify({
    logger,
    bodyLimit: options.bodyLimitBytes,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    genReqId: () => `req_${randomHex(12)}`,
    // Node's request timeout bounds receiving a request (headers and body) and stops counting
    // once the request is complete, so answers streamed for minutes are not cut.
    requestTimeout: receiveTimeoutMs,
    http: receiveTimeoutHttpOptions(receiveTimeoutMs),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    routerOptions: { maxParamLength: maxPathParameterLength },
    // A request arriving while the gateway closes is answered 503 by the onRequest hook below,
    // in the catalogue's shape; Fastify's own answer has the framework's shape.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Bodies are forwarded as sent on the fast path: validation must never rewrite them.
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: false,
        allErrors: false,
        allowUnionTypes: true,
        // Tagged unions report errors inside the branch their tag names (evaluation questions).
        discriminator: true,
      },
    },
  });

  installErrorHandling(app);

  deferContinue(app.server);
  installJsonBodyParser(app, {
    bodyLimitBytes: options.bodyLimitBytes,
    budget: new BodyByteBudget(options.bodiesInFlightLimitBytes ?? defaultBodiesInFlightLimitBytes),
  });

  // Graceful shutdown: close() waits for in-flight requests, but a keep-alive connection that
  // only becomes idle after close() began, or one that never sent a request, would hold the
  // server open until its client lets go.
  let closing = false;
  const unusedConnections = new UnusedConnections(app.server);

  // Hooks that run on every request take a callback rather than return a promise: an async hook
  // costs each request a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('request-id', request.id);
    reply.header('x-request-id', request.id);
    if (closing) {
      // A new request on a connection still busy when close() began: another instance serves it.
      reply.header('connection', 'close');
      sendError(
        reply,
        new ApiError('not_ready', 'The gateway is shutting down; retry with a delay.', {
          retryAfter: 1,
        }).toGenerationError(),
        errorShapeForUrl(request.url),
      );
      return;
    }
    // docs/api.md: a token never travels in a URL; refuse it before anything reads it.
    if (hasCredentialInUrl(request.url, request.query)) {
      sendError(
        reply,
        new ApiError('credential_in_query').toGenerationError(),
        errorShapeForUrl(request.url),
      );
      return;
    }
    done();
  });

  app.addHook('preClose', async () => {
    closing = true;
    unusedConnections.close();
  });
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchyard client API',
        version: contractVersion,
        description:
          'Model-routing gateway: message, responses and chat-completions dialects paid from a credits balance.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
  });

  const metrics =
    dependencies.metrics ?? createHttpMetrics({ processMetrics: options.processMetrics ?? false });
  installHttpMetrics(app, metrics);

  // One WebSocket server for the whole app, registered before any route that upgrades
  // (docs/decisions/0012); the check keeps a second registration from attaching a second upgrade
  // listener.
  if (!app.hasPlugin('@fastify/websocket')) {
    // ws buffers a whole message before any route sees it: bound it like an HTTP body.
    await app.register(websocket, { options: { maxPayload: options.bodyLimitBytes } });
  }

  await app.register(healthRoutes, { checkReady: dependencies.checkReady });
  await app.register(modelRoutes, {
    catalog: dependencies.catalog,
    authenticator: dependencies.authenticator,
  });
  await app.register(adminRoutes, {
    operator: dependencies.operator,
    authenticator: dependencies.authenticator,
    adminToken: dependencies.adminToken,
    ...(dependencies.reloadConfiguration !== undefined
      ? { reloadConfiguration: dependencies.reloadConfiguration }
      : {}),
    ...(dependencies.router !== undefined
      ? { routing: { catalog: dependencies.catalog, router: dependencies.router } }
      : {}),
    ...(dependencies.budgets !== undefined ? { budgets: dependencies.budgets } : {}),
  });
  for (const routes of dependencies.routes ?? []) await app.register(routes);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.ready();
  return app;
}
