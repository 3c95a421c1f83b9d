import { createHash } from 'node:crypto';

/**
 * The storage reservation of a job's results (docs/decisions/0117). Derived from the job id, so
 * whichever worker stores the results, or fails the job, finds it without a column of its own.
 */
export function reservationIdOfJob(jobId: string): string {
  const digest = createHash('sha256').update(`result space of ${jobId}`).digest('hex');
  return `asset_${digest.slice(0, 32)}`;
}

/**
 * The worst case of a job's results: `images.maxResultImageBytes` per image, the largest image
 * the gateway accepts from an upstream (a larger one fails the job).
 */
export function resultSpaceOf(images: number, maxResultImageBytes: number): number {
  return images * maxResultImageBytes;
}
