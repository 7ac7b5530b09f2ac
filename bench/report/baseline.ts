import type { BenchResults } from '../report.ts';
import { table } from './markdown.ts';

/** Section 2: the CloudWatch-alarm baseline the detection is compared with. */
export function baselineSection(results: BenchResults): string[] {
  const { detection } = results;
  return [
    '## 2. The CloudWatch-alarm baseline',
    '',
    `One metric alarm per signal at our thresholds, ${detection.settings.specified.datapointsToAlarm} of ${detection.settings.specified.evaluationPeriods} datapoints, missing data treated as missing, an evaluation range of ${detection.settings.specified.evaluationRange} datapoints, and an OR composite alarm per cluster.`,
    '',
    table(
      ['alarm', 'threshold (>=)', 'from'],
      detection.alarms.map((a) => [a.id, a.threshold, a.from]),
    ),
    '',
  ];
}
