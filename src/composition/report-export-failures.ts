import type { ExportResult } from '@opentelemetry/core';

/** An OTLP exporter as the SDK's processors and readers call it. */
interface Exporter<Items> {
  export(items: Items, resultCallback: (result: ExportResult) => void): void;
}

/** One warn line at most per interval: an endpoint that is down fails every batch. */
const reportEveryMs = 60_000;

/**
 * The exporter, telling `warn` when a batch could not be exported (an endpoint down or refusing):
 * the SDK itself drops such a batch without a word. The first failure is told at once, later ones
 * once a minute with how many batches were lost meanwhile.
 */
export function reportExportFailures<Items, E extends Exporter<Items>>(
  exporter: E,
  signal: 'traces' | 'metrics',
  warn: (fields: Record<string, unknown>, message: string) => void,
  now: () => number = Date.now,
): E {
  let lost = 0;
  let toldAt = Number.NEGATIVE_INFINITY;
  const exportBatch = exporter.export.bind(exporter);
  exporter.export = (items, resultCallback) =>
    exportBatch(items, (result) => {
      // ExportResultCode.FAILED
      if (result.code !== 0) {
        lost += 1;
        if (now() - toldAt >= reportEveryMs) {
          warn(
            { signal, lostBatches: lost, cause: result.error?.message ?? 'unknown' },
            `exporting ${signal} over OTLP failed; the batch is dropped`,
          );
          toldAt = now();
          lost = 0;
        }
      }
      resultCallback(result);
    });
  return exporter;
}
