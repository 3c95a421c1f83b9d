import type { ExportResult } from '@opentelemetry/core';
import { describe, expect, it } from 'vitest';
import { reportExportFailures } from './report-export-failures.ts';

/** An exporter whose batches succeed or fail as the test says. */
function scriptedExporter(results: ExportResult[]) {
  return {
    export(_items: string[], done: (result: ExportResult) => void) {
      done(results.shift() ?? { code: 0 });
    },
  };
}

describe('reportExportFailures', () => {
  it('tells the first failed batch at once, then at most one line a minute with the batches lost', () => {
    let clock = 0;
    const lines: Record<string, unknown>[] = [];
    const refused = { code: 1, error: new Error('connect ECONNREFUSED 127.0.0.1:4318') };
    const exporter = reportExportFailures(
      scriptedExporter([refused, refused, { code: 0 }, refused, refused]),
      'traces',
      (fields) => lines.push(fields),
      () => clock,
    );
    const results: number[] = [];
    const send = () => exporter.export(['span'], (result) => results.push(result.code));
    send();
    expect(lines).toEqual([
      { signal: 'traces', lostBatches: 1, cause: 'connect ECONNREFUSED 127.0.0.1:4318' },
    ]);
    clock = 30_000;
    send();
    send();
    send();
    expect(lines).toHaveLength(1);
    clock = 61_000;
    send();
    expect(lines[1]).toEqual({
      signal: 'traces',
      lostBatches: 3,
      cause: 'connect ECONNREFUSED 127.0.0.1:4318',
    });
    // The processor still hears every result as it was.
    expect(results).toEqual([1, 1, 0, 1, 1]);
  });
});
