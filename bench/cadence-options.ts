import { deploymentConfigSchema } from '../shared/config/deployment-config.ts';
import type { RuleSet } from '../shared/engine/rule-set.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import { type Corpus, pagingClusters } from './detection-quality.ts';
import { median } from './statistics.ts';

/** The slow cadences compared: every minute is polling without a cadence. */
const EVERY = ['1m', '5m', '10m', '15m', '20m', '30m'] as const;

export interface CadenceOption {
  readonly every: (typeof EVERY)[number];
  /** Whether the tripwire alarms are deployed; without them a cluster is read on the slow cadence, or while it pages. */
  readonly tripwire: boolean;
  /** Share of cluster-minutes read in the quiet week: what CloudWatch bills scales with it. */
  readonly quietPolledShare: number;
  readonly detected: number;
  readonly incidents: number;
  readonly medianLatencyMin: number;
  readonly worstLatencyMin: number;
  readonly falsePages: number;
}

/**
 * The trade-off behind `poll.every`: replay the corpus with each slow cadence, with the tripwires and without them, and
 * see what is read in a quiet week against how late pages come.
 */
export async function measureCadenceOptions(
  ruleSet: RuleSet,
  corpus: Corpus,
  quietWeek: string,
): Promise<CadenceOption[]> {
  const options: CadenceOption[] = [];
  for (const every of EVERY) {
    for (const tripwire of [true, false]) {
      if (every === '1m' && !tripwire) continue;
      const latencies: number[] = [];
      let incidents = 0;
      let detected = 0;
      let falsePages = 0;
      let quietPolledShare = Number.NaN;
      for (const { name, scenario } of corpus) {
        const config = deploymentConfigSchema.parse({
          clusters: [...scenario.clusters.keys()].map((cluster) => ({ name: cluster })),
          poll: { every, tripwire: { enabled: tripwire } },
        });
        const result = await replayScenario(scenario, { ruleSet, config });
        const paging = pagingClusters(scenario);
        const pages = result.notifications.filter((n) => n.kind === 'page');
        falsePages += pages.filter((p) => !p.clusters.some((c) => paging.has(c))).length;
        incidents += paging.size;
        detected += [...paging].filter((cluster) => pages.some((p) => p.clusters.includes(cluster))).length;
        for (const check of result.checks) {
          if (
            check.expectation.kind === 'page' &&
            check.expectation.onset !== undefined &&
            check.latencyMs !== undefined
          )
            latencies.push(check.latencyMs / 60_000);
        }
        if (name === quietWeek) {
          const polled = result.activity.polls.reduce((n, p) => n + p.polled, 0);
          quietPolledShare = polled / (scenario.steps * scenario.clusters.size);
        }
      }
      options.push({
        every,
        tripwire,
        quietPolledShare,
        detected,
        incidents,
        medianLatencyMin: median(latencies),
        worstLatencyMin: Math.max(...latencies),
        falsePages,
      });
    }
  }
  return options;
}
