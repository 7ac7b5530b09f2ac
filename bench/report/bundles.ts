import type { BenchResults } from '../report.ts';
import { ms, table } from './markdown.ts';

/** Section 5: the Lambda bundles, their size and cold import, and how busy the machine was while it was timed. */
export function bundlesSection(results: BenchResults): string[] {
  const load = (b: BenchResults['bundles'][number]) => b.loadAverage.map((n) => n.toFixed(1)).join(' to ');
  return [
    '## 5. Lambda bundles',
    '',
    table(
      [
        'bundle',
        'minified size',
        'source map',
        'memory',
        'median import (10 fresh processes)',
        'its CPU time',
        'median process start to exit',
        'a bare Node start, between the runs',
        'load average',
      ],
      results.bundles.map((b) => [
        b.name,
        `${(b.bytes / 1e6).toFixed(2)} MB`,
        `${(b.sourceMapBytes / 1e6).toFixed(2)} MB`,
        `${b.memoryMb} MB`,
        ms(b.medianImportMs),
        ms(b.medianImportCpuMs),
        ms(b.medianProcessMs),
        ms(b.medianNodeStartMs),
        load(b),
      ]),
    ),
    '',
    `The import is timed on the wall clock. Its CPU time is the same work without the wait for a CPU: on a machine no one else uses the two are within a few milliseconds, and when the load average is above the ${results.machine.cpus} CPUs the wall time grows with it, as the bare Node start does.`,
    '',
  ];
}
