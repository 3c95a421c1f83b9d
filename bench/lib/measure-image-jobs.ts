/**
 * The image job scenario (docs/performance.md): N image generations submitted at once
 * to a job-style upstream that keeps each pending for seconds; every job is polled to its end.
 * Reports jobs per second from the first submit to the last finish, the gateway's peak RSS, and
 * whether the ledger charged exactly N × the price (read with the operator CLI).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { request } from 'undici';

import { sampleRss } from './bench-process.ts';
import {
  IMAGE_JOB_MS,
  IMAGE_MODEL_ID,
  IMAGE_PRICE_CREDITS,
  type BenchTargets,
} from './bench-targets.ts';

const run = promisify(execFile);

export interface ImageJobsResult {
  jobs: number;
  upstreamJobMs: number;
  succeeded: number;
  failed: number;
  seconds: number;
  jobsPerSecond: number;
  peakRssMb: number;
  expectedChargeMicro: number;
  chargedMicro: number;
  exact: boolean;
}

async function balanceMicro(root: string, targets: BenchTargets): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ['bin/switchyard.js', '--json', 'account', 'show', targets.gatewayAccountId, '--limit', '1'],
    { cwd: root, env: { ...process.env, ...targets.gatewayEnv }, timeout: 30_000 },
  );
  return (JSON.parse(stdout) as { balance: { balance_micro: number } }).balance.balance_micro;
}

async function call(
  url: string,
  token: string,
  options: { method: 'GET' | 'POST'; body?: unknown; key?: string },
): Promise<{ status: number; body: { id?: string; status?: string } }> {
  const response = await request(url, {
    method: options.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.key === undefined ? {} : { 'idempotency-key': options.key }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as { id?: string } };
}

export async function measureImageJobs(
  root: string,
  targets: BenchTargets,
  jobs: number,
  log: (line: string) => void,
): Promise<ImageJobsResult> {
  const base = `http://127.0.0.1:${targets.gateway.port}`;
  const token = targets.gatewayToken;
  const before = await balanceMicro(root, targets);
  const rss = sampleRss(targets.gateway.pid);
  const started = performance.now();
  const run = Date.now().toString(36);
  // Submissions answered without a job, by status: a failed run says why.
  const refusals = new Map<number, number>();
  const outcomes = await Promise.all(
    Array.from({ length: jobs }, async (_, index) => {
      const created = await call(`${base}/v1/images/generations`, token, {
        method: 'POST',
        key: `bench-${run}-${index}`,
        body: { model: IMAGE_MODEL_ID, prompt: `bench image ${index}`, source: 'credits' },
      });
      const id = created.body.id;
      if (id === undefined) {
        refusals.set(created.status, (refusals.get(created.status) ?? 0) + 1);
        return 'failed';
      }
      let status = created.body.status;
      while (status === 'queued' || status === 'running') {
        await new Promise((resolve) => setTimeout(resolve, 250));
        status = (await call(`${base}/v1/images/generations/${id}`, token, { method: 'GET' })).body
          .status;
      }
      return status === 'succeeded' ? 'succeeded' : 'failed';
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const peakRssMb = rss.stop().peakKb / 1024;
  // Let the group commit of the last settlements land before the CLI reads the file.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = await balanceMicro(root, targets);
  const succeeded = outcomes.filter((outcome) => outcome === 'succeeded').length;
  const expectedChargeMicro = Math.round(succeeded * IMAGE_PRICE_CREDITS * 1e6);
  const result: ImageJobsResult = {
    jobs,
    upstreamJobMs: IMAGE_JOB_MS,
    succeeded,
    failed: jobs - succeeded,
    seconds,
    jobsPerSecond: jobs / seconds,
    peakRssMb,
    expectedChargeMicro,
    chargedMicro: before - after,
    exact: before - after === expectedChargeMicro && succeeded === jobs,
  };
  log(
    `image-jobs: ${succeeded}/${jobs} succeeded in ${seconds.toFixed(2)} s (${result.jobsPerSecond.toFixed(1)} jobs/s, upstream ${IMAGE_JOB_MS} ms each), ` +
      `peak RSS ${peakRssMb.toFixed(0)} MB, ` +
      (refusals.size === 0
        ? ''
        : `submissions refused (status: count) ${[...refusals].map(([status, count]) => `${status}: ${count}`).join(', ')}, `) +
      `charged ${result.chargedMicro} µcredits of ${expectedChargeMicro} expected: ${result.exact ? 'exact' : 'NOT EXACT'}`,
  );
  return result;
}
