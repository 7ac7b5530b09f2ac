import { pollSchema } from '../../shared/config/deployment-config.ts';
import type { BenchResults } from '../report.ts';
import { count, min, table } from './markdown.ts';

/** The cadence a deployment gets by default, which the corpus is replayed with. */
const DEFAULT_POLL = pollSchema.parse(undefined);

/** Section 1: detection quality on the scenario corpus. */
export function detectionSection(results: BenchResults): string[] {
  const { detection } = results;
  const { totals } = detection;
  const paged = detection.incidents.filter((i) => i.level === 'page');
  const tickets = detection.incidents.filter((i) => i.level === 'ticket');
  const ratio = (ours: number | null, theirs: number | null | undefined) =>
    ours === null || theirs === null || theirs === undefined ? '–' : (ours / theirs).toFixed(2);
  return [
    '## 1. Detection quality on the scenario corpus',
    '',
    `Replayed through \`runPoll\` with the default cadence (slow every ${DEFAULT_POLL.every}, the tripwire alarms, every minute while paging). Latency is the first page minus the onset, in minutes of sample time.`,
    '',
    table(
      [
        'scenario',
        'cluster',
        'expected rule',
        'latency',
        'pages',
        'alarm baseline latency (1-min)',
        'ratio',
        'alarm baseline latency (5-min)',
      ],
      paged.map((i) => [
        i.scenario,
        i.cluster,
        i.rule ?? '(grouped)',
        min(i.latencyMin),
        i.pages,
        min(i.baseline?.specified.latencyMin),
        ratio(i.latencyMin, i.baseline?.specified.latencyMin),
        min(i.baseline?.libraryDefault.latencyMin),
      ]),
    ),
    '',
    'Ticket-level incidents with an onset:',
    '',
    table(
      ['scenario', 'cluster', 'rule', 'latency', 'detected'],
      tickets.map((i) => [i.scenario, i.cluster, i.rule ?? '', min(i.latencyMin), i.detected ? 'yes' : 'no']),
    ),
    '',
    table(
      [
        'scenario',
        'clusters',
        'minutes',
        'polled share',
        'pages',
        'false pages',
        'all notifications',
        'baseline notifications (composite)',
        'baseline false',
        'if every metric alarm notified',
      ],
      detection.scenarios.map((s) => [
        s.file,
        s.clusters,
        count(s.steps),
        `${(s.polledShare * 100).toFixed(1)} %`,
        s.pages,
        s.falsePages,
        s.notifications,
        s.baseline.specified.notifications,
        s.baseline.specified.falseNotifications,
        s.baseline.specified.metricAlarmNotifications,
      ]),
    ),
    '',
    table(
      ['total', 'sentinel', 'alarm baseline (1-min, as specified)', 'alarm baseline (5-min, library default period)'],
      [
        [
          'page-level incidents detected',
          `${totals.detected} of ${totals.pageIncidents}`,
          `${totals.baseline.specified.detected} of ${totals.pageIncidents}`,
          `${totals.baseline.libraryDefault.detected} of ${totals.pageIncidents}`,
        ],
        ['precision', totals.precision.toFixed(2), '–', '–'],
        ['recall', totals.recall.toFixed(2), '–', '–'],
        [
          'median latency',
          min(totals.medianLatencyMin),
          min(totals.baseline.specified.medianLatencyMin),
          min(totals.baseline.libraryDefault.medianLatencyMin),
        ],
        [
          'worst latency',
          min(totals.worstLatencyMin),
          min(totals.baseline.specified.worstLatencyMin),
          min(totals.baseline.libraryDefault.worstLatencyMin),
        ],
        [
          'notifications that page',
          totals.pages,
          totals.baseline.specified.notifications,
          totals.baseline.libraryDefault.notifications,
        ],
        [
          'false pages',
          totals.falsePages,
          totals.baseline.specified.falseNotifications,
          totals.baseline.libraryDefault.falseNotifications,
        ],
        [
          'sentinel ÷ baseline, median latency',
          '',
          totals.baseline.specified.latencyRatio.toFixed(2),
          totals.baseline.libraryDefault.latencyRatio.toFixed(2),
        ],
        [
          'sentinel ÷ baseline, notifications',
          '',
          totals.baseline.specified.notificationRatio.toFixed(2),
          totals.baseline.libraryDefault.notificationRatio.toFixed(2),
        ],
      ],
    ),
    '',
  ];
}
