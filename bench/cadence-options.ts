import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compileRuleSet, deploymentConfigSchema } from '../shared/config/deployment-config.ts';
import type { RuleSet } from '../shared/engine/rule-set.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import { type Corpus, loadCorpus, pagingClusters } from './detection-quality.ts';
import { median } from './statistics.ts';

const run = promisify(execFile);
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

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

/** One slow cadence, with the tripwires deployed or not. */
export type CadenceChoice = Pick<CadenceOption, 'every' | 'tripwire'>;

const CHOICES: readonly CadenceChoice[] = EVERY.flatMap((every): CadenceChoice[] =>
  every === '1m' ? [{ every, tripwire: true }] : [true, false].map((tripwire) => ({ every, tripwire })),
);

/** Where the corpus is read from, so that a child process can read the same: its folder and the files it takes. */
export interface CorpusSource {
  readonly dir: string;
  readonly names: readonly string[];
}

/**
 * The trade-off behind `poll.every`: replay the corpus with each slow cadence, with the tripwires and without them, and
 * see what is read in a quiet week against how late pages come. The cadences are shared between this process and one
 * child (bench/cadence-worker.ts), each replaying with the default rules: eleven replays of the whole corpus are most
 * of the benchmark's time on one core.
 */
export async function measureCadenceOptions(source: CorpusSource, quietWeek: string): Promise<CadenceOption[]> {
  const theirs = CHOICES.filter((_, i) => i % 2 === 1);
  const mine = CHOICES.filter((_, i) => i % 2 === 0);
  const child = run(
    process.execPath,
    ['--import', 'tsx', here('./cadence-worker.ts'), JSON.stringify({ source, quietWeek, choices: theirs })],
    {
      maxBuffer: 1 << 20,
    },
  );
  const corpus = (await loadCorpus(source.dir)).filter((s) => source.names.includes(s.name));
  const ruleSet = compileRuleSet([], 'rules');
  const measured: CadenceOption[] = [];
  for (const choice of mine) measured.push(await measureCadenceOption(ruleSet, corpus, quietWeek, choice));
  const { stdout } = await child;
  measured.push(...(JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as CadenceOption[]));
  return CHOICES.flatMap((c) => measured.filter((m) => m.every === c.every && m.tripwire === c.tripwire));
}

/** One cadence replayed over the corpus. */
export async function measureCadenceOption(
  ruleSet: RuleSet,
  corpus: Corpus,
  quietWeek: string,
  { every, tripwire }: CadenceChoice,
): Promise<CadenceOption> {
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
      if (check.expectation.kind === 'page' && check.expectation.onset !== undefined && check.latencyMs !== undefined)
        latencies.push(check.latencyMs / 60_000);
    }
    if (name === quietWeek) {
      const polled = result.activity.polls.reduce((n, p) => n + p.polled, 0);
      quietPolledShare = polled / (scenario.steps * scenario.clusters.size);
    }
  }
  return {
    every,
    tripwire,
    quietPolledShare,
    detected,
    incidents,
    medianLatencyMin: median(latencies),
    worstLatencyMin: Math.max(...latencies),
    falsePages,
  };
}
