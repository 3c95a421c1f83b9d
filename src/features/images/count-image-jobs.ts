import { Counter, type Registry } from 'prom-client';

import type { ImageJobStore } from './image-job-store.ts';

/**
 * The job store, counting on GET /metrics (`switchyard_image_jobs_total`) each job this process
 * moved into a state: created (`queued`), claimed by a worker (`running`, again after a takeover),
 * `succeeded` or `failed`. Counted at the store, the one path every step takes, and only for
 * writes that took effect: a step refused because another worker owns the job is not counted.
 */
export function countImageJobs(jobs: ImageJobStore, registry: Registry): ImageJobStore {
  const entered = new Counter({
    name: 'switchyard_image_jobs_total',
    help: 'Image jobs this process moved into a state: queued, running, succeeded, failed.',
    labelNames: ['state'],
    registers: [registry],
  });
  return {
    async createJob(job) {
      await jobs.createJob(job);
      entered.inc({ state: 'queued' });
    },
    getJob: (accountId, id) => jobs.getJob(accountId, id),
    listJobs: (accountId, page) => jobs.listJobs(accountId, page),
    async claimJobs(claim) {
      const claimed = await jobs.claimJobs(claim);
      if (claimed.length > 0) entered.inc({ state: 'running' }, claimed.length);
      return claimed;
    },
    findJobByKey: (accountId, key, createdAfter) => jobs.findJobByKey(accountId, key, createdAfter),
    forgetKey: (accountId, id) => jobs.forgetKey(accountId, id),
    renewLease: (id, owner, leaseUntil) => jobs.renewLease(id, owner, leaseUntil),
    recordUpstreamJob: (id, owner, upstream) => jobs.recordUpstreamJob(id, owner, upstream),
    recordResults: (id, owner, resultAssetIds) => jobs.recordResults(id, owner, resultAssetIds),
    async finishJob(id, owner, outcome, now) {
      const finished = await jobs.finishJob(id, owner, outcome, now);
      if (finished) entered.inc({ state: outcome.state });
      return finished;
    },
    releaseLeases: (owner) => jobs.releaseLeases(owner),
  };
}
