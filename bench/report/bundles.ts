import type { BenchResults } from '../report.ts';
import { ms, table } from './markdown.ts';

/** Section 5: the Lambda bundles, their size and cold import. */
export function bundlesSection(results: BenchResults): string[] {
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
        'median process start to exit',
      ],
      results.bundles.map((b) => [
        b.name,
        `${(b.bytes / 1e6).toFixed(2)} MB`,
        `${(b.sourceMapBytes / 1e6).toFixed(2)} MB`,
        `${b.memoryMb} MB`,
        ms(b.medianImportMs),
        ms(b.medianProcessMs),
      ]),
    ),
    '',
  ];
}
