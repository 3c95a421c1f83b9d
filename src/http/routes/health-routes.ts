import type { FastifyInstance } from 'fastify';

export interface HealthDependencies {
  /** Resolves when every store answers; rejects otherwise. */
  checkReady(): Promise<void>;
}

/**
 * Cheap liveness for probes and for Claude Code's connectivity warm-up: `HEAD /` in
 * docs/clients.md, `HEAD /api/hello` from Claude Code 2.1.329 on the wire.
 */
export async function healthRoutes(
  app: FastifyInstance,
  dependencies: HealthDependencies,
): Promise<void> {
  const hidden = { schema: { hide: true } };
  app.head('/', hidden, async (_request, reply) => reply.code(200).send());
  app.head('/api/hello', hidden, async (_request, reply) => reply.code(200).send());
  app.get('/', hidden, async () => ({ name: 'switchyard', openapi: '/openapi.json' }));
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async (request, reply) => {
    try {
      await dependencies.checkReady();
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send({
        status: 'not_ready',
        error: { type: 'overloaded_error', message: 'A store is unreachable.' },
      });
    }
  });
}
