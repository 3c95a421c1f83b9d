import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Principal } from '../../auth/authenticator.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { ImageProviderConfig } from '../../config/images-config-schema.ts';
import { settlePricedCall, type PricedCallDependencies } from '../../generation/priced-call.ts';
import type { StorageService } from '../storage/storage-service.ts';
import { ImageUpstreamFailure, type ImageUpstreamClient } from './call-image-upstream.ts';
import { detectImageType, mediaTypeOfFormat } from './detect-image-type.ts';
import type { ImageCatalog, ImageCatalogModel } from './image-catalog.ts';
import type { ImageJob, ImageJobError, ImageJobStore } from './image-job-store.ts';
import type { CheckedInputImage } from './image-types.ts';
import { reservationIdOfJob } from './reserve-result-space.ts';

/** A job claimed this many times without finishing is failed rather than tried again. */
const maxAttempts = 5;

export interface ImageJobContext {
  catalog: ImageCatalog;
  jobs: ImageJobStore;
  storage: StorageService;
  upstream: ImageUpstreamClient;
  billing: PricedCallDependencies;
  apiKey(provider: ImageProviderConfig): string | undefined;
  maxResultImageBytes: number;
  now(): number;
  logEvent(level: 'warn' | 'info', message: string, fields: Record<string, unknown>): void;
}

/**
 * The worker lost the job (its lease lapsed and another took it), or the pool is stopping and
 * asked it to hand over at a point where that costs nothing.
 */
class JobLeft extends Error {}

/** The settlement id of a job: stable, so a job run twice is charged once (CreditLedger.settle). */
export function settlementIdOfJob(job: Pick<ImageJob, 'id' | 'createdAt'>): string {
  return `le_${Math.trunc(job.createdAt).toString(16).padStart(12, '0')}${job.id.replace(/^imggen_/, '')}`;
}

function toJobError(error: ApiError): ImageJobError {
  return {
    code: error.code,
    message: error.message,
    status: error.status,
    ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
  };
}

/**
 * Runs one claimed job to its end (docs/images.md "Jobs"): submit (or resume polling with the
 * stored upstream id), store the images as protected files, record them, settle by the job's
 * stable settlement id, release the protection, finish. Every write is conditional on still
 * owning the job. A cut (`signal`) leaves the job as it is for the next worker; a hand-over
 * (`handOver`) does so only before a submit or between polls, so the next worker neither submits
 * twice nor finds a submit it cannot account for (docs/decisions/0108).
 */
export async function runImageJob(
  job: ImageJob,
  owner: string,
  signal: AbortSignal,
  context: ImageJobContext,
  handOver: AbortSignal = new AbortController().signal,
): Promise<void> {
  const { jobs, now } = context;
  const model = context.catalog.get(job.model);
  try {
    if (model === undefined) {
      throw new ApiError('internal', `The image model ${job.model} is no longer configured.`);
    }
    let resultIds = job.resultAssetIds;
    if (resultIds === null) {
      if (job.attempts > maxAttempts) {
        throw new ApiError('internal', 'The job was interrupted too many times.');
      }
      const images = await produceImages(job, model, owner, { signal, handOver }, context);
      resultIds = await storeResults(job, images, context);
      if (!(await jobs.recordResults(job.id, owner, resultIds))) {
        // Another worker owns the job now: these files are not its result.
        await discardFiles(job.accountId, resultIds, context.storage);
        return;
      }
    }
    // The results are counted as files now: what is left of their reservation is free again.
    await context.storage.releaseReservation(job.accountId, reservationIdOfJob(job.id));
    const deployment =
      job.deploymentIndex === null ? null : (model.providers[job.deploymentIndex]?.id ?? null);
    const charged = await settle(job, resultIds.length, deployment, context);
    await unprotect(job.accountId, [...job.inputAssetIds, ...resultIds], context.storage);
    await jobs.finishJob(job.id, owner, { state: 'succeeded', charged }, now());
  } catch (error) {
    if (error instanceof JobLeft || signal.aborted) return;
    const failure =
      error instanceof ImageUpstreamFailure
        ? error.error
        : error instanceof ApiError
          ? error
          : new ApiError('internal', 'The image job failed inside the gateway.');
    if (job.holdId !== null) await context.billing.ledger.releaseHold(job.holdId);
    await context.storage.releaseReservation(job.accountId, reservationIdOfJob(job.id));
    await unprotect(
      job.accountId,
      [...job.inputAssetIds, ...(job.resultAssetIds ?? [])],
      context.storage,
    );
    await jobs.finishJob(job.id, owner, { state: 'failed', error: toJobError(failure) }, now());
    // An error the gateway did not expect is the worker pool's to log, with its stack.
    if (!(error instanceof ApiError) && !(error instanceof ImageUpstreamFailure)) throw error;
    logJobFailure(job, failure, context);
  }
}

/**
 * One line for the operator per failed job, as the error handler writes for a request
 * (docs/decisions/0111): the job runs apart from the call that created it, and a client that
 * polls later is answered its failure without an error. An upstream's failure names the
 * provider, the path called and the cause, at warn when it is the gateway's or the upstream's
 * and at info when the upstream refused the client's request.
 */
function logJobFailure(job: ImageJob, failure: ApiError, context: ImageJobContext): void {
  const fields = { jobId: job.id, model: job.model, code: failure.code, status: failure.status };
  if (failure.diagnosis !== undefined) {
    const level = failure.status >= 500 ? 'warn' : 'info';
    context.logEvent(level, 'upstream call failed', { ...fields, ...failure.diagnosis });
  } else if (failure.status >= 500) {
    context.logEvent('warn', 'image job failed', { ...fields, reason: failure.message });
  }
}

/** A job's two ways of being stopped: cut at once, or asked to leave at a free point. */
interface JobSignals {
  signal: AbortSignal;
  handOver: AbortSignal;
}

async function produceImages(
  job: ImageJob,
  model: ImageCatalogModel,
  owner: string,
  signals: JobSignals,
  context: ImageJobContext,
): Promise<Buffer[]> {
  const { signal } = signals;
  const { adapter } = model;
  if (job.pollUrl !== null && job.deploymentIndex !== null) {
    // Resumed after a restart: the upstream already has the job.
    const provider = model.providers[job.deploymentIndex] as ImageProviderConfig;
    return pollUntilDone(job, provider, model, job.pollUrl, signals, context);
  }
  if (job.deploymentIndex !== null) {
    // A submit was sent and its answer never recorded: sending it again could generate (and cost
    // the operator) twice, so the job fails and its hold is released.
    throw new ApiError(
      'upstream_error',
      'The gateway stopped while the image provider was answering; the generation was not charged. Send a new request.',
    );
  }
  const inputImages = await readInputImages(job, context.storage);
  const deployments = model.config.deployments;
  for (let index = 0; index < deployments.length; index += 1) {
    const provider = model.providers[index] as ImageProviderConfig;
    const deployment = deployments[index] as (typeof deployments)[number];
    if (signal.aborted || signals.handOver.aborted) throw new JobLeft();
    checkDeadline(job, context.now());
    // Marked before the send, so a restart knows a submit may have reached the upstream.
    await owned(
      context.jobs.recordUpstreamJob(job.id, owner, {
        deploymentIndex: index,
        upstreamJobId: null,
        pollUrl: null,
      }),
    );
    const call = adapter.buildSubmit({
      parameters: job.parameters,
      upstreamModel: deployment.upstreamModel,
      inputImages,
      apiKey: context.apiKey(provider),
    });
    let answer;
    try {
      answer = adapter.readSubmit(await context.upstream.json(provider, call, signal));
      if (answer === undefined) {
        throw new ImageUpstreamFailure(
          new ApiError(
            'upstream_error',
            `The answer of the image provider ${provider.id} is not one.`,
          ),
          true,
        );
      }
    } catch (error) {
      // Nothing was accepted upstream: the next deployment may take the request.
      if (
        error instanceof ImageUpstreamFailure &&
        error.retryable &&
        index < deployments.length - 1
      )
        continue;
      throw error;
    }
    if (answer.kind === 'images') return answer.images;
    // Stored before the first poll, so a restart resumes polling this very upstream job.
    await owned(
      context.jobs.recordUpstreamJob(job.id, owner, {
        deploymentIndex: index,
        upstreamJobId: answer.upstreamJobId,
        pollUrl: answer.pollUrl,
      }),
    );
    return pollUntilDone(job, provider, model, answer.pollUrl, signals, context);
  }
  throw new ApiError('internal', 'The image model has no deployment.');
}

async function pollUntilDone(
  job: ImageJob,
  provider: ImageProviderConfig,
  model: ImageCatalogModel,
  pollUrl: string,
  signals: JobSignals,
  context: ImageJobContext,
): Promise<Buffer[]> {
  const { signal, handOver } = signals;
  const { adapter } = model;
  if (adapter.buildPoll === undefined || adapter.readPoll === undefined) {
    throw new ApiError('internal', `The provider kind of ${provider.id} is not polled.`);
  }
  const apiKey = context.apiKey(provider);
  for (;;) {
    // The upstream id is stored: the next process polls on, nothing is lost by leaving here.
    if (handOver.aborted) throw new JobLeft();
    checkDeadline(job, context.now());
    let answer;
    try {
      answer = adapter.readPoll(
        await context.upstream.json(provider, adapter.buildPoll(pollUrl, apiKey), signal),
      );
    } catch (error) {
      // A poll that fails for a moment does not fail the job; the deadline bounds the retries.
      if (!(error instanceof ImageUpstreamFailure) || !error.retryable) throw error;
      answer = { kind: 'pending' } as const;
    }
    if (answer === undefined) {
      throw new ImageUpstreamFailure(
        new ApiError('upstream_error', `The poll answer of ${provider.id} is not one.`),
        false,
      );
    }
    if (answer.kind === 'ready') {
      const images: Buffer[] = [];
      for (const url of answer.sampleUrls) {
        images.push(
          await context.upstream.bytes(
            provider,
            { method: 'GET', url, headers: {} },
            signal,
            context.maxResultImageBytes,
          ),
        );
      }
      return images;
    }
    if (answer.kind === 'failed') {
      throw new ImageUpstreamFailure(
        new ApiError(answer.refused ? 'invalid_request' : 'upstream_error', answer.message),
        false,
      );
    }
    try {
      await sleep(provider.pollIntervalMs, undefined, {
        signal: AbortSignal.any([signal, handOver]),
      });
    } catch {
      throw new JobLeft();
    }
  }
}

function checkDeadline(job: ImageJob, now: number): void {
  if (now > job.deadlineAt) {
    throw new ApiError(
      'upstream_error',
      'The image provider did not finish within the job timeout; the generation was not charged.',
    );
  }
}

async function owned(write: Promise<boolean>): Promise<void> {
  if (!(await write)) throw new JobLeft();
}

async function readInputImages(
  job: ImageJob,
  storage: StorageService,
): Promise<CheckedInputImage[]> {
  const images: CheckedInputImage[] = [];
  for (const id of job.inputAssetIds) {
    const asset = await storage.getAsset(job.accountId, id);
    const body = asset === undefined ? undefined : await storage.openContent(asset);
    if (asset === undefined || body === undefined) {
      throw new ApiError('internal', `The input image ${id} of the job is gone.`);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    images.push({ name: asset.name, mediaType: asset.contentType, bytes: Buffer.concat(chunks) });
  }
  return images;
}

async function storeResults(
  job: ImageJob,
  images: Buffer[],
  context: ImageJobContext,
): Promise<string[]> {
  const expected = mediaTypeOfFormat(job.parameters.outputFormat);
  for (const image of images) {
    // The job's storage reservation counts this much per image (docs/decisions/0117).
    if (image.length > context.maxResultImageBytes) {
      throw new ImageUpstreamFailure(
        new ApiError('upstream_error', 'The image provider answered with a too large image.'),
        false,
      );
    }
    if (detectImageType(image) !== expected) {
      throw new ImageUpstreamFailure(
        new ApiError('upstream_error', `The image provider did not answer with ${expected} bytes.`),
        false,
      );
    }
  }
  const extension = job.parameters.outputFormat;
  const stored: string[] = [];
  try {
    for (const [index, image] of images.entries()) {
      const asset = await context.storage.storeAsset({
        accountId: job.accountId,
        name: `${job.id}-${index + 1}.${extension}`,
        contentType: expected,
        source: 'image_result',
        reservationId: reservationIdOfJob(job.id),
        body: Readable.from([image]),
        // Protected until the job finishes (docs/api.md, "Stored files").
        protected: true,
        preparedAt: job.createdAt,
      });
      stored.push(asset.id);
    }
  } catch (error) {
    await discardFiles(job.accountId, stored, context.storage);
    throw error;
  }
  return stored;
}

/** Charges the delivered images, or releases the hold when none were delivered. */
async function settle(
  job: ImageJob,
  delivered: number,
  deployment: string | null,
  context: ImageJobContext,
): Promise<number> {
  const cost = job.pricePerImage * delivered;
  if (job.holdId === null) return 0;
  if (delivered === 0) {
    await context.billing.ledger.releaseHold(job.holdId);
    return 0;
  }
  // The worker has no token lookup: the settlement needs only the two ids.
  const principal = {
    account: { id: job.accountId },
    apiKey: { id: job.apiKeyId },
  } as Pick<Principal, 'account' | 'apiKey'>;
  const result = await settlePricedCall(context.billing, {
    id: settlementIdOfJob(job),
    principal,
    holdId: job.holdId,
    cost,
    reason: `image ${job.model}`,
    requestId: job.id,
    surface: 'images',
    model: job.model,
    deployment,
    startedAt: job.createdAt,
  });
  return result?.charged ?? cost;
}

async function unprotect(accountId: string, ids: string[], storage: StorageService): Promise<void> {
  for (const id of ids) await storage.setProtected(accountId, id, false);
}

async function discardFiles(
  accountId: string,
  ids: string[],
  storage: StorageService,
): Promise<void> {
  for (const id of ids) {
    await storage.setProtected(accountId, id, false);
    await storage.deleteAsset(accountId, id).catch(() => undefined);
  }
}
