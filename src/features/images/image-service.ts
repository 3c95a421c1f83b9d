import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

import type { Principal } from '../../auth/authenticator.ts';
import { microPerCredit } from '../../billing/micro-credits.ts';
import type { ErrorCode } from '../../canonical/error-catalogue.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { ImagesConfig } from '../../config/images-config-schema.ts';
import {
  admitRequest,
  holdPrice,
  releaseAdmission,
  type PricedCallDependencies,
} from '../../generation/priced-call.ts';
import { fingerprintRequest } from '../../idempotency/fingerprint-request.ts';
import { hashIdempotencyKey } from '../../idempotency/hash-idempotency-key.ts';
import type {
  IdempotencyService,
  IdempotentOperation,
} from '../../idempotency/idempotency-service.ts';
import type { StoredAnswer } from '../../idempotency/idempotency-store.ts';
import { parseUntrustedJson } from '../../shared/parse-json.ts';
import { randomHex } from '../../shared/random-hex.ts';
import type { Asset } from '../storage/asset.ts';
import { isPossibleRecordId } from '../storage/is-possible-record-id.ts';
import type { StorageService } from '../storage/storage-service.ts';
import { checkInputImages } from './check-input-images.ts';
import type { ImageCatalog } from './image-catalog.ts';
import type { ImageJob, ImageJobStore } from './image-job-store.ts';
import type {
  GeneratedImage,
  ImageCreateOutcome,
  ImageGeneration,
  ImageGenerationRequest,
  ImageModelListing,
} from './image-types.ts';
import type { ImageWorkerPool } from './image-worker-pool.ts';
import { reservationIdOfJob, resultSpaceOf } from './reserve-result-space.ts';

/** The stored answer names its job, so a replay answers the job's present state. */
const jobHeader = 'image-generation-id';

export interface ImageServiceDependencies {
  config: ImagesConfig;
  catalog: ImageCatalog;
  jobs: ImageJobStore;
  storage: StorageService;
  idempotency: IdempotencyService;
  operation: IdempotentOperation;
  billing: PricedCallDependencies;
  workers: ImageWorkerPool;
  /** `server.publicBaseUrl`: makes OpenAI's `data[].url` absolute; a path without it. */
  publicBaseUrl?: string | undefined;
}

/**
 * Image generation (docs/images.md) for both the HTTP routes and the MCP
 * tools: nothing here knows about HTTP. A create call holds the worst-case price, stores the
 * reference images, queues a durable job and waits a configured while for it; the job is then
 * either finished (200) or still running (202) and polled with `get`.
 */
export class ImageService {
  readonly #dependencies: ImageServiceDependencies;

  constructor(dependencies: ImageServiceDependencies) {
    this.#dependencies = dependencies;
  }

  /** The image catalog; a token that may use some models only sees those. */
  models(principal?: Principal): ImageModelListing[] {
    const listing = this.#dependencies.catalog.list();
    const allowed = principal?.apiKey.allowedModels ?? null;
    return allowed === null ? listing : listing.filter((model) => allowed.includes(model.id));
  }

  /**
   * POST /v1/images/generations. 400s come before the key is claimed. The same key with
   * the same request answers the same job in its present state (docs/decisions/0071): finished,
   * still running, or 410 once its images were deleted; with another request, 409.
   */
  async create(
    principal: Principal,
    request: ImageGenerationRequest,
    idempotencyKey: string,
  ): Promise<ImageCreateOutcome> {
    const { catalog, config, idempotency, operation } = this.#dependencies;
    // docs/decisions/0116: the OpenAI SDKs cannot send `source`; credits is the only one.
    const source = request.source ?? 'credits';
    if (source !== 'credits') {
      throw new ApiError('invalid_request', 'source: must be "credits" for a client token.', {
        details: { param: 'source' },
      });
    }
    const resolved = catalog.resolve(request);
    const allowed = principal.apiKey.allowedModels;
    if (allowed !== null && !allowed.includes(request.model))
      throw new ApiError(
        'model_not_allowed',
        `This token may not use the model "${request.model}".`,
      );
    const inputImages = checkInputImages(request.input_images ?? [], config.maxInputImageBytes);
    const includeBase64 = inlinesImages(request);
    const fingerprint = fingerprintRequest({
      operation: operation.name,
      headers: {},
      body: {
        model: request.model,
        source,
        ...resolved.parameters,
        includeBase64,
        // A digest stands for each image's bytes: the same bytes are the same request.
        inputImages: inputImages.map((image) => ({
          name: image.name,
          mediaType: image.mediaType,
          sha256: createHash('sha256').update(image.bytes).digest('hex'),
        })),
      },
    });
    const link = { idempotencyKey: hashIdempotencyKey(idempotencyKey), fingerprint };
    const { answer, replayed } = await idempotency.run(
      { accountId: principal.account.id, operation, key: idempotencyKey, fingerprint },
      async (): Promise<StoredAnswer> => {
        // A job this key already made (its create call was cut by a crash) is the answer,
        // never a second job (docs/decisions/0107).
        const made = await this.#jobOfKey(principal.account.id, link);
        const job =
          made ?? (await this.#submit(principal, request.model, resolved, inputImages, link));
        const generation = await this.#waitAndRender(job, made !== undefined);
        return {
          status: generation.status === 'succeeded' ? 200 : 202,
          headers: { 'content-type': 'application/json', [jobHeader]: job.id },
          body: JSON.stringify(generation),
        };
      },
    );
    const jobId = answer.headers[jobHeader];
    if (jobId === undefined) throw storedError(answer);
    const generation = replayed
      ? await this.get(principal, jobId, { includeBase64 })
      : (parseUntrustedJson(answer.body) as ImageGeneration);
    if (!replayed && includeBase64) await this.#inline(principal.account.id, generation);
    if (!replayed) this.#listForOpenAi(generation);
    return {
      status: generation.status === 'queued' || generation.status === 'running' ? 202 : 200,
      generation,
      replayed,
    };
  }

  /** GET /v1/images/generations/{job_id}: 404 for another account's job, 410 once deleted. */
  async get(
    principal: Principal,
    jobId: string,
    options: { includeBase64?: boolean } = {},
  ): Promise<ImageGeneration> {
    const job = isPossibleRecordId(jobId)
      ? await this.#dependencies.jobs.getJob(principal.account.id, jobId)
      : undefined;
    if (job === undefined) throw new ApiError('not_found', 'No such image generation.');
    const generation = await this.#render(job);
    if (options.includeBase64 === true) await this.#inline(principal.account.id, generation);
    this.#listForOpenAi(generation);
    return generation;
  }

  /** A result image's bytes (MCP `download_image`); another account's id is 404 as unknown. */
  async openImage(
    principal: Principal,
    assetId: string,
  ): Promise<{ asset: Asset; body: Readable }> {
    const { storage } = this.#dependencies;
    const asset = await storage.getAsset(principal.account.id, assetId);
    const body = asset === undefined ? undefined : await storage.openContent(asset);
    if (asset === undefined || body === undefined) throw new ApiError('not_found', 'No such file.');
    return { asset, body };
  }

  /**
   * The job an earlier create call under this key made, when that call never answered (its
   * process stopped); it is resumed here at once when its worker is gone. The same key with
   * another request is 409, as a stored answer would be.
   */
  async #jobOfKey(
    accountId: string,
    link: { idempotencyKey: string; fingerprint: string },
  ): Promise<ImageJob | undefined> {
    const { jobs, workers, billing, operation } = this.#dependencies;
    const since = billing.now() - operation.windowMs;
    const job = await jobs.findJobByKey(accountId, link.idempotencyKey, since);
    if (job === undefined) return undefined;
    if (job.requestFingerprint !== link.fingerprint) {
      throw new ApiError(
        'idempotency_key_reused',
        `The ${operation.keyHeader ?? 'Idempotency-Key'} was already used with a different request; send a new key for a new request.`,
      );
    }
    if (job.state === 'queued' || job.state === 'running') workers.kick(job.queue, job.id);
    return job;
  }

  async #submit(
    principal: Principal,
    modelId: string,
    resolved: ReturnType<ImageCatalog['resolve']>,
    inputImages: ReturnType<typeof checkInputImages>,
    link: { idempotencyKey: string; fingerprint: string },
  ): Promise<ImageJob> {
    const { config, billing, storage, jobs, workers } = this.#dependencies;
    const now = billing.now();
    const id = `imggen_${randomHex(10)}`;
    const lease = await admitRequest(billing, principal);
    try {
      // The hold outlives the job's deadline, so an unfinished job's hold is never released
      // under it; a crash between the hold and the job insert leaves a hold that expires.
      const holdId = await holdPrice(billing, {
        principal,
        amount: resolved.pricePerImage * resolved.parameters.n,
        what: 'this image generation',
        id: `hold_${id}`,
        ttlMs: config.jobTimeoutSeconds * 1000 + 5 * 60_000,
      });
      const deadlineAt = now + config.jobTimeoutSeconds * 1000;
      const reservationId = reservationIdOfJob(id);
      const inputAssetIds: string[] = [];
      try {
        // docs/decisions/0117: the results' space is counted before the upstream is called,
        // so a full quota costs neither the operator a generation nor the client its inputs.
        await storage.reserveSpace(principal.account.id, {
          id: reservationId,
          bytes: resultSpaceOf(resolved.parameters.n, config.maxResultImageBytes),
          until: deadlineAt + 5 * 60_000,
        });
        for (const image of inputImages) {
          const asset = await storage.storeAsset({
            accountId: principal.account.id,
            name: image.name.slice(0, 255),
            contentType: image.mediaType,
            source: 'image_input',
            body: Readable.from([image.bytes]),
            protected: true,
            preparedAt: now,
          });
          inputAssetIds.push(asset.id);
        }
        await jobs.createJob({
          id,
          accountId: principal.account.id,
          apiKeyId: principal.apiKey.id,
          model: modelId,
          queue: (resolved.model.providers[0] as { id: string }).id,
          parameters: resolved.parameters,
          inputAssetIds,
          holdId: holdId ?? null,
          pricePerImage: resolved.pricePerImage,
          createdAt: now,
          deadlineAt,
          idempotencyKey: link.idempotencyKey,
          requestFingerprint: link.fingerprint,
        });
      } catch (error) {
        if (holdId !== undefined) await billing.ledger.releaseHold(holdId);
        await storage.releaseReservation(principal.account.id, reservationId);
        for (const assetId of inputAssetIds) {
          await storage.setProtected(principal.account.id, assetId, false);
          await storage.deleteAsset(principal.account.id, assetId).catch(() => undefined);
        }
        throw error;
      }
      workers.kick(resolved.model.providers[0]?.id as string, id);
      const job = await jobs.getJob(principal.account.id, id);
      if (job === undefined) throw new ApiError('internal', 'The image job vanished.');
      return job;
    } finally {
      await releaseAdmission(billing, lease);
    }
  }

  /**
   * Waits for the job up to the sync wait. A job this call made that failed meanwhile answers
   * its error and gives its key back (the call's failure releases the key, so a retry makes a
   * new job); a job an earlier call made answers as it is, failed or not.
   */
  async #waitAndRender(created: ImageJob, madeEarlier = false): Promise<ImageGeneration> {
    const { workers, jobs, config } = this.#dependencies;
    if (created.state === 'queued' || created.state === 'running') {
      await workers.waitForFinish(created.id, config.syncWaitMs);
    }
    const job = (await jobs.getJob(created.accountId, created.id)) ?? created;
    if (!madeEarlier && job.state === 'failed' && job.error !== null) {
      await jobs.forgetKey(job.accountId, job.id);
      const { code, message, status, retryAfter } = job.error;
      throw new ApiError(code as ErrorCode, message, {
        status,
        ...(retryAfter === undefined ? {} : { retryAfter }),
      });
    }
    return this.#render(job);
  }

  async #render(job: ImageJob): Promise<ImageGeneration> {
    const generation: ImageGeneration = {
      id: job.id,
      object: 'image.generation',
      status: job.state,
      model: job.model,
      created_at: Math.floor(job.createdAt / 1000),
      created: Math.floor(job.createdAt / 1000),
      finished_at: job.finishedAt === null ? null : Math.floor(job.finishedAt / 1000),
      poll_path: `/v1/images/generations/${job.id}`,
    };
    if (job.state === 'failed' && job.error !== null) {
      generation.error = { code: job.error.code, message: job.error.message };
    }
    if (job.state === 'succeeded') {
      const ids = job.resultAssetIds ?? [];
      const images: GeneratedImage[] = [];
      for (const id of ids) {
        const asset = await this.#dependencies.storage.getAsset(job.accountId, id);
        if (asset !== undefined) images.push(describeImage(asset));
      }
      // Once every image is gone (DELETE, cleanup or retention), 410 — no new generation.
      if (ids.length > 0 && images.length === 0) throw new ApiError('image_result_deleted');
      generation.images = images;
      generation.usage = { images: ids.length, credits: (job.charged ?? 0) / microPerCredit };
    }
    return generation;
  }

  /** OpenAI's `data[]` (docs/decisions/0115): the inlined bytes, or else the download URL. */
  #listForOpenAi(generation: ImageGeneration): void {
    if (generation.images === undefined) return;
    const base = this.#dependencies.publicBaseUrl?.replace(/\/+$/, '') ?? '';
    generation.data = generation.images.map((image) =>
      image.b64_json === undefined
        ? { url: `${base}${image.download_path}` }
        : { b64_json: image.b64_json },
    );
  }

  async #inline(accountId: string, generation: ImageGeneration): Promise<void> {
    const { storage } = this.#dependencies;
    for (const image of generation.images ?? []) {
      const asset = await storage.getAsset(accountId, image.id);
      const body = asset === undefined ? undefined : await storage.openContent(asset);
      if (body === undefined) continue;
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      image.b64_json = Buffer.concat(chunks).toString('base64');
    }
  }
}

function describeImage(asset: Asset): GeneratedImage {
  return {
    id: asset.id,
    content_type: asset.contentType,
    size: asset.size,
    sha256: asset.sha256,
    download_path: `/v1/storage/assets/${asset.id}/content`,
  };
}

/**
 * Whether the answer carries each image's bytes (docs/decisions/0072, 0115): when asked by
 * `include_base64` or `response_format`, and by default for a request without `source` — the
 * OpenAI SDKs, which read `data[].b64_json` as OpenAI's GPT Image models always answer it.
 */
function inlinesImages(request: ImageGenerationRequest): boolean {
  if (request.response_format === 'url' && request.include_base64 === true) {
    throw new ApiError(
      'invalid_request',
      'response_format: "url" contradicts include_base64: true; send one of them.',
      { details: { param: 'response_format' } },
    );
  }
  if (request.response_format !== undefined) return request.response_format === 'b64_json';
  return request.include_base64 ?? request.source === undefined;
}

/** A final client error stored under the key (docs/decisions/0045), raised again on replay. */
function storedError(answer: StoredAnswer): ApiError {
  const body = parseUntrustedJson(answer.body) as { error?: { code?: string; message?: string } };
  return new ApiError((body.error?.code ?? 'invalid_request') as ErrorCode, body.error?.message, {
    status: answer.status,
  });
}
