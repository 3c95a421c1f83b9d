import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import type { IdempotencyService } from '../../idempotency/idempotency-service.ts';
import type { IdempotentOperation } from '../../idempotency/idempotency-service.ts';
import type { GatewayFeature } from '../gateway-feature.ts';
import type { GatewayParts } from '../gateway-parts.ts';
import { removeStaleSpoolFiles } from './remove-stale-spool-files.ts';
import { transcriptionRoutes } from './transcription-routes.ts';
import { TranscriptionService } from './transcription-service.ts';

/**
 * Transcription's idempotency (docs/decisions/0045, 0065): an answer is replayed for 15 minutes
 * under its Idempotency-Key, like evaluation's. A claim holds 10 minutes, past the longest
 * upstream try of each deployment for 20 minutes of audio.
 */
export const transcriptionOperation: IdempotentOperation = {
  name: 'transcription',
  windowMs: 15 * 60_000,
  claimMs: 10 * 60_000,
};

/** Uploads live here only while their request runs (docs/decisions/0065). */
export function transcriptionSpoolDirectory(dataDir: string): string {
  return path.join(dataDir, 'tmp', 'transcription');
}

export function composeTranscription(
  parts: GatewayParts,
  idempotency: IdempotencyService,
): GatewayFeature {
  const config = parts.config.transcription;
  // Without models there is nothing to transcribe with, so the route does not exist.
  if (config === undefined) return { routes: [] };
  const transcription = new TranscriptionService({
    config,
    providers: parts.config.providers,
    pools: parts.pools,
    ledger: parts.billing.ledger,
    settlements: parts.billing.settlements,
    holdTtlMs: parts.billing.holdTtlMs,
    ...(parts.billing.budgets !== undefined ? { budgets: parts.billing.budgets } : {}),
    rateLimiter: parts.billing.rateLimiter,
    limits: parts.billing.limits,
    apiKey: (providerId) => parts.providerKey(providerId),
    now: parts.now,
  });
  const spoolDirectory = transcriptionSpoolDirectory(parts.config.dataDir);
  return {
    routes: [
      async (app) => {
        await mkdir(spoolDirectory, { recursive: true });
        // Files left by a process that stopped mid-request; a live request's file is younger.
        await removeStaleSpoolFiles(spoolDirectory, parts.now() - transcriptionOperation.claimMs);
        await transcriptionRoutes(app, {
          authenticator: parts.authenticator,
          transcription,
          idempotency,
          operation: transcriptionOperation,
          spoolDirectory,
        });
      },
    ],
  };
}
