import type { FastifyInstance } from 'fastify';

/**
 * What a feature folder (`src/features/<name>/`) hands the composition root (docs/architecture.md):
 * its route plugins and its background work. Each folder has a small `compose-<name>.ts` that
 * builds its service from the shared parts and returns one of these, so `compose.ts` stays a list.
 */
export interface GatewayFeature {
  /** Route plugins, registered inside the app like the generation routes. */
  routes: Array<(app: FastifyInstance) => Promise<void>>;
  /** Starts background work (sweepers, workers) once the app is built. */
  start?(): void;
  /** Stops background work; called before the app and the stores close. */
  stop?(): Promise<void>;
}
