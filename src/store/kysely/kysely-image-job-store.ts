import type { Kysely, Selectable } from 'kysely';

import type {
  ClaimImageJobs,
  ImageJob,
  ImageJobError,
  ImageJobOutcome,
  ImageJobStore,
  NewImageJob,
} from '../../features/images/image-job-store.ts';
import type { ImageJobParameters, ImageJobState } from '../../features/images/image-types.ts';
import type { Database, StoreDialect } from './kysely-database.ts';

/** The table of migration 0008, kept beside its only user. */
interface ImageJobsTable {
  id: string;
  account_id: string;
  api_key_id: string;
  model: string;
  queue: string;
  parameters: string;
  input_asset_ids: string;
  hold_id: string | null;
  price_per_image: number;
  state: ImageJobState;
  deployment_index: number | null;
  upstream_job_id: string | null;
  poll_url: string | null;
  result_asset_ids: string | null;
  charged: number | null;
  error: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  deadline_at: number;
  finished_at: number | null;
  /** Migration 0012. */
  idempotency_key: string | null;
  request_fingerprint: string | null;
}

type ImageJobDatabase = Database & { image_jobs: ImageJobsTable };

function toImageJob(row: Selectable<ImageJobsTable>): ImageJob {
  return {
    id: row.id,
    accountId: row.account_id,
    apiKeyId: row.api_key_id,
    model: row.model,
    queue: row.queue,
    parameters: JSON.parse(row.parameters) as ImageJobParameters,
    inputAssetIds: JSON.parse(row.input_asset_ids) as string[],
    holdId: row.hold_id,
    pricePerImage: row.price_per_image,
    createdAt: row.created_at,
    deadlineAt: row.deadline_at,
    state: row.state,
    deploymentIndex: row.deployment_index,
    upstreamJobId: row.upstream_job_id,
    pollUrl: row.poll_url,
    resultAssetIds:
      row.result_asset_ids === null ? null : (JSON.parse(row.result_asset_ids) as string[]),
    charged: row.charged,
    error: row.error === null ? null : (JSON.parse(row.error) as ImageJobError),
    attempts: row.attempts,
    finishedAt: row.finished_at,
    idempotencyKey: row.idempotency_key,
    requestFingerprint: row.request_fingerprint,
  };
}

/**
 * The image job table on SQLite and PostgreSQL (docs/decisions/0070). A claim picks its rows in
 * a materialized CTE with `FOR UPDATE SKIP LOCKED` on PostgreSQL, like the storage sweeper, so
 * workers in several processes take disjoint jobs without waiting on each other; SQLite stores
 * belong to one process (docs/decisions/0014).
 */
export class KyselyImageJobStore implements ImageJobStore {
  readonly #database: Kysely<ImageJobDatabase>;
  readonly #dialect: StoreDialect;

  constructor(database: Kysely<Database>, dialect: StoreDialect) {
    this.#database = database as unknown as Kysely<ImageJobDatabase>;
    this.#dialect = dialect;
  }

  async createJob(job: NewImageJob): Promise<void> {
    await this.#database
      .insertInto('image_jobs')
      .values({
        id: job.id,
        account_id: job.accountId,
        api_key_id: job.apiKeyId,
        model: job.model,
        queue: job.queue,
        parameters: JSON.stringify(job.parameters),
        input_asset_ids: JSON.stringify(job.inputAssetIds),
        hold_id: job.holdId,
        price_per_image: job.pricePerImage,
        state: 'queued',
        attempts: 0,
        created_at: job.createdAt,
        deadline_at: job.deadlineAt,
        idempotency_key: job.idempotencyKey,
        request_fingerprint: job.requestFingerprint,
      })
      .execute();
  }

  async findJobByKey(
    accountId: string,
    idempotencyKey: string,
    createdAfter: number,
  ): Promise<ImageJob | undefined> {
    const row = await this.#database
      .selectFrom('image_jobs')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('idempotency_key', '=', idempotencyKey)
      .where('created_at', '>', createdAfter)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? undefined : toImageJob(row);
  }

  async forgetKey(accountId: string, id: string): Promise<void> {
    await this.#database
      .updateTable('image_jobs')
      .set({ idempotency_key: null })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .execute();
  }

  async getJob(accountId: string, id: string): Promise<ImageJob | undefined> {
    const row = await this.#database
      .selectFrom('image_jobs')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row === undefined ? undefined : toImageJob(row);
  }

  async listJobs(
    accountId: string,
    page: { after?: string; limit: number },
  ): Promise<{ jobs: ImageJob[]; hasMore: boolean }> {
    let boundary: { createdAt: number; id: string } | undefined;
    if (page.after !== undefined) {
      const after = await this.getJob(accountId, page.after);
      if (after === undefined) return { jobs: [], hasMore: false };
      boundary = { createdAt: after.createdAt, id: after.id };
    }
    // One row more than asked tells whether another page follows.
    const rows = await this.#database
      .selectFrom('image_jobs')
      .selectAll()
      .where('account_id', '=', accountId)
      .$if(boundary !== undefined, (query) =>
        query.where((where) =>
          where.or([
            where('created_at', '<', boundary?.createdAt ?? 0),
            where.and([
              where('created_at', '=', boundary?.createdAt ?? 0),
              where('id', '<', boundary?.id ?? ''),
            ]),
          ]),
        ),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit + 1)
      .execute();
    return {
      jobs: rows.slice(0, page.limit).map(toImageJob),
      hasMore: rows.length > page.limit,
    };
  }

  async claimJobs(claim: ClaimImageJobs): Promise<ImageJob[]> {
    const lockSkipping = this.#dialect === 'postgres';
    const rows = await this.#database.transaction().execute((transaction) =>
      transaction
        .with(
          (name) => name('picked').materialized(),
          (pick) =>
            pick
              .selectFrom('image_jobs')
              .select('id')
              .where('queue', '=', claim.queue)
              .where((where) =>
                where.or([
                  where('state', '=', 'queued'),
                  where.and([
                    where('state', '=', 'running'),
                    where('lease_until', '<=', claim.now),
                  ]),
                ]),
              )
              .$if(claim.jobId !== undefined, (query) =>
                query.where('id', '=', claim.jobId as string),
              )
              .orderBy('created_at')
              .limit(claim.limit)
              .$if(lockSkipping, (query) => query.forUpdate().skipLocked()),
        )
        .updateTable('image_jobs')
        .set((expression) => ({
          state: 'running',
          lease_owner: claim.owner,
          lease_until: claim.leaseUntil,
          attempts: expression('attempts', '+', 1),
        }))
        .where('id', 'in', (database) => database.selectFrom('picked').select('picked.id'))
        .where('state', 'in', ['queued', 'running'])
        .returningAll()
        .execute(),
    );
    return rows.map(toImageJob).sort((left, right) => left.createdAt - right.createdAt);
  }

  async renewLease(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    const result = await this.#owned(id, owner).set({ lease_until: leaseUntil }).executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async recordUpstreamJob(
    id: string,
    owner: string,
    upstream: { deploymentIndex: number; upstreamJobId: string | null; pollUrl: string | null },
  ): Promise<boolean> {
    const result = await this.#owned(id, owner)
      .set({
        deployment_index: upstream.deploymentIndex,
        upstream_job_id: upstream.upstreamJobId,
        poll_url: upstream.pollUrl,
      })
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async recordResults(id: string, owner: string, resultAssetIds: string[]): Promise<boolean> {
    const result = await this.#owned(id, owner)
      .set({ result_asset_ids: JSON.stringify(resultAssetIds) })
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async finishJob(
    id: string,
    owner: string,
    outcome: ImageJobOutcome,
    now: number,
  ): Promise<boolean> {
    const result = await this.#owned(id, owner)
      .set({
        state: outcome.state,
        charged: outcome.state === 'succeeded' ? outcome.charged : null,
        error: outcome.state === 'failed' ? JSON.stringify(outcome.error) : null,
        finished_at: now,
        lease_owner: null,
        lease_until: null,
      })
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async releaseLeases(owner: string): Promise<number> {
    const result = await this.#database
      .updateTable('image_jobs')
      .set({ lease_until: 0 })
      .where('lease_owner', '=', owner)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** An update of a running job that only its current lease owner may make. */
  #owned(id: string, owner: string) {
    return this.#database
      .updateTable('image_jobs')
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('state', '=', 'running');
  }
}
