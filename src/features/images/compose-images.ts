import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

import { readProviderKey } from '../../config/load-config.ts';
import type { IdempotencyService } from '../../idempotency/idempotency-service.ts';
import type { IdempotentOperation } from '../../idempotency/idempotency-service.ts';
import type { GatewayFeature } from '../gateway-feature.ts';
import type { GatewayParts } from '../gateway-parts.ts';
import type { StorageService } from '../storage/storage-service.ts';
import { ImageUpstreamClient } from './call-image-upstream.ts';
import { countImageJobs } from './count-image-jobs.ts';
import { ImageCatalog } from './image-catalog.ts';
import type { ImageJobStore } from './image-job-store.ts';
import { imageRoutes } from './image-routes.ts';
import { ImageService } from './image-service.ts';
import { imageSourcesRoutes } from './image-sources-routes.ts';
import { ImageWorkerPool } from './image-worker-pool.ts';
import { listImageSources, type ImageSources } from './list-image-sources.ts';
import { runImageJob } from './run-image-job.ts';

export interface ImagesFeature extends GatewayFeature {
  /** What the MCP tools call; undefined when no image models are configured. */
  service: ImageService | undefined;
  /** What GET /v1/images/sources and the MCP `image_sources` tool answer, configured or not. */
  sources: ImageSources;
}

/** Image generation: service, routes and the job workers, from the shared parts. */
export function composeImages(
  parts: GatewayParts,
  dependencies: {
    idempotency: IdempotencyService;
    storage: StorageService;
    jobs: ImageJobStore;
    /** Where the job counts go (GET /metrics). */
    metrics: Registry;
  },
): ImagesFeature {
  const config = parts.config.images;
  const sources: ImageSources = (principal) =>
    listImageSources({ ledger: parts.billing.ledger, configured: config !== undefined }, principal);
  const sourcesRoute = (app: FastifyInstance) =>
    imageSourcesRoutes(app, { authenticator: parts.authenticator, sources });
  // Without image models there is nothing to generate, so only the sources route exists: it
  // tells a client that image generation is not configured (docs/images.md).
  if (config === undefined) return { routes: [sourcesRoute], service: undefined, sources };
  const operation: IdempotentOperation = {
    name: 'image_generation',
    windowMs: config.replayWindowSeconds * 1000,
    // Longer than a create call runs: the sync wait plus storing the reference images.
    claimMs: config.syncWaitMs + 5 * 60_000,
    keyHeader: 'Idempotency-Key',
  };
  const catalog = new ImageCatalog(config);
  const jobs = countImageJobs(dependencies.jobs, dependencies.metrics);
  const billing = {
    ledger: parts.billing.ledger,
    settlements: parts.billing.settlements,
    rateLimiter: parts.billing.rateLimiter,
    limits: parts.billing.limits,
    holdTtlMs: parts.billing.holdTtlMs,
    ...(parts.billing.budgets !== undefined ? { budgets: parts.billing.budgets } : {}),
    now: parts.now,
  };
  const apiKey = (provider: { apiKeyEnv?: string | undefined }) =>
    readProviderKey(provider.apiKeyEnv, parts.env);
  const upstream = new ImageUpstreamClient(parts.pools, parts.now, apiKey);
  const context = {
    catalog,
    jobs,
    storage: dependencies.storage,
    upstream,
    billing,
    apiKey,
    maxResultImageBytes: config.maxResultImageBytes,
    now: parts.now,
    logEvent: parts.logEvent,
  };
  const workers = new ImageWorkerPool({
    jobs,
    queues: new Map(config.providers.map((provider) => [provider.id, provider.concurrency])),
    run: (job, owner, signal, handOver) => runImageJob(job, owner, signal, context, handOver),
    leaseMs: config.leaseSeconds * 1000,
    stopGraceMs: parts.config.server.shutdownGraceMs,
    ...(parts.billing.open === undefined ? {} : { draining: parts.billing.open }),
    scanIntervalMs: 1_000,
    now: parts.now,
    onError: (error, message) => parts.logError(error, message),
  });
  const service = new ImageService({
    config,
    catalog,
    jobs,
    storage: dependencies.storage,
    idempotency: dependencies.idempotency,
    operation,
    billing,
    workers,
    publicBaseUrl: parts.config.server.publicBaseUrl,
  });
  // Eight reference images at the size limit, base64 (4/3), and the rest of the body.
  const bodyLimitBytes = Math.ceil((config.maxInputImageBytes * 8 * 4) / 3) + 1024 * 1024;
  return {
    service,
    sources,
    routes: [
      sourcesRoute,
      (app) =>
        imageRoutes(app, { authenticator: parts.authenticator, images: service, bodyLimitBytes }),
    ],
    start: () => workers.start(),
    stop: () => workers.stop(),
  };
}
