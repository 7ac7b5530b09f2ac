import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { snsClient } from '../aws/clients.ts';
import { dynamoDbStores } from '../aws/dynamodb/stores.ts';
import { SnsNotifier } from '../aws/sns/notifier.ts';
import { compileRuleSet } from '../shared/config/deployment-config.ts';
import { POLLER_MEMORY_MB } from '../shared/digest/cost-model.ts';
import { buildPlan } from '../shared/pipeline/build-plan.ts';
import { runPoll } from '../shared/pipeline/poll.ts';
import type { Tripwires } from '../shared/pipeline/ports.ts';
import { formatCompactSeries, parseCompactSeries } from '../shared/scenario/compact-series.ts';
import { ScenarioMetricSource } from '../shared/scenario/replay.ts';
import { parseScenario, type Scenario } from '../shared/scenario/scenario.ts';
import { parseJson } from '../shared/schema-errors.ts';
import { type AwsHarness, TABLE } from './aws-harness.ts';
import { dyingAtFirstOutboxWrite, losingFirstClaimAndCommitAnswers } from './store-faults.ts';

/**
 * The poller's configured limits: its memory (infra/ops-stack.ts deploys it with POLLER_MEMORY_MB) and its timeout
 * (POLLER_TIMEOUT there, 50 seconds).
 */
export const POLLER_LIMITS = { memoryMb: POLLER_MEMORY_MB, timeoutMs: 50_000 } as const;

/** The faults a fleet outage is run with, each striking one poll in the middle of its step. */
export const FLEET_OUTAGE_FAULTS = [
  ['with the poll that pages killed between its write-ahead record and its application', dyingAtFirstOutboxWrite],
  ['with the answers to a step claim and a write-ahead commit lost', losingFirstClaimAndCommitAnswers],
] as const;

/** The cluster outside the fleet whose outage comes an hour after the fleet's ended. */
export const LONE_CLUSTER = 'lone-cluster';
const HOUR_STEPS = 60;

/**
 * One poll: how long it ran, and the most memory its process held while it ran (sampled every few milliseconds and
 * when it returned), the JavaScript heap and the resident set.
 */
export interface InvocationFigures {
  readonly step: number;
  readonly ms: number;
  readonly peakHeapMb: number;
  readonly peakRssMb: number;
}

const MB = 2 ** 20;
/** How often memory is sampled during a poll: each sample waits for the event loop, so a peak may fall between. */
const SAMPLE_EVERY_MS = 20;

/** Run `work`, sampling the process's heap and resident set while it runs. */
async function measured(work: () => Promise<unknown>): Promise<Omit<InvocationFigures, 'step'>> {
  let peakHeap = 0;
  let peakRss = 0;
  const sample = () => {
    const { heapUsed, rss } = process.memoryUsage();
    peakHeap = Math.max(peakHeap, heapUsed);
    peakRss = Math.max(peakRss, rss);
  };
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(sampler);
    sample();
  }
  return { ms: performance.now() - started, peakHeapMb: peakHeap / MB, peakRssMb: peakRss / MB };
}

/**
 * Every cluster of a fleet of `size` goes through dev-a's webhook outage of scenarios/fleet-webhook-outage.json in the
 * same minute (steps 75 to 114); one cluster outside the fleet goes through the same outage an hour after it ended.
 * One series is shared by every cluster: the fleet costs the scenario no memory of its own.
 */
export function fleetOutageScenario(size: number): Scenario {
  const file = fileURLToPath(new URL('../scenarios/fleet-webhook-outage.json', import.meta.url));
  const raw = parseJson(readFileSync(file, 'utf8'), file) as {
    clusters: Record<string, { signals: Record<string, string> }>;
  };
  const template = raw.clusters['dev-a']?.signals ?? {};
  // The same outage, HOUR_STEPS + 40 steps later (an hour after it ended): healthy until then.
  const shift = HOUR_STEPS + 40;
  const later = Object.fromEntries(
    Object.entries(template).map(([signal, series]) => {
      const samples = parseCompactSeries(series);
      const shifted = [...Array(shift).fill(samples[0]), ...samples.slice(0, samples.length - shift)];
      return [signal, formatCompactSeries(shifted)];
    }),
  );
  const scenario = parseScenario(
    {
      ...raw,
      clusters: { [fleetClusterName(0)]: { signals: template }, [LONE_CLUSTER]: { signals: later } },
      maintenance: [],
      expect: [],
    },
    file,
  );
  const shared = scenario.clusters.get(fleetClusterName(0));
  const lone = scenario.clusters.get(LONE_CLUSTER);
  if (!shared || !lone) throw new Error('the scenario lost its clusters');
  const clusters = new Map([
    ...Array.from({ length: size }, (_, i) => [fleetClusterName(i), shared] as const),
    [LONE_CLUSTER, lone],
  ]);
  return { ...scenario, clusters };
}

export function fleetClusterName(index: number): string {
  return `fleet-${String(index).padStart(5, '0')}`;
}

export interface FleetOutageRun {
  /** The subjects of what reached the paging and notice topics, in order. */
  readonly subjects: readonly string[];
  readonly invocations: readonly InvocationFigures[];
  /** The heap before the first poll: what the process held already (the runtime, the plan, a test runner). */
  readonly heapBeforeMb: number;
}

/**
 * Poll a fleet outage minute by minute as the poller does (runPoll over the DynamoDB stores and the SNS notifier), a
 * few seconds after each minute, with each poll's document client from `clientOf` (where a test injects a fault),
 * until the fleet's page, its resolve and the lone cluster's page have gone out: the steps after each would only
 * cost time. A poll that throws is recorded and the next minute's poll goes on, as the schedule's would.
 */
export async function runFleetOutage(options: {
  readonly harness: AwsHarness;
  readonly scenario: Scenario;
  readonly tripwires: Tripwires;
  readonly clientOf: () => DynamoDBDocumentClient;
  readonly onInvocation?: (figures: InvocationFigures) => void;
}): Promise<FleetOutageRun> {
  const { harness, scenario } = options;
  const plan = buildPlan({
    ruleSet: compileRuleSet([], 'rules'),
    clusters: [...scenario.clusters.keys()],
    maintenance: [],
    stepSeconds: 60,
  });
  const metrics = new ScenarioMetricSource(scenario);
  const notifier = new SnsNotifier(snsClient(), { paging: harness.topics.paging, notice: harness.topics.notice });
  const stepAt = (index: number) => scenario.start + index * 60_000;
  const subjects = () => harness.sns.published.map((m) => m.subject ?? '');
  const invocations: InvocationFigures[] = [];
  const heapBeforeMb = process.memoryUsage().heapUsed / MB;

  const pollSteps = async (from: number, to: number, until: (sent: number) => boolean) => {
    for (let index = from; index <= to && !until(subjects().length); index++) {
      const now = stepAt(index) + 63_000;
      const figures: InvocationFigures = {
        step: index,
        ...(await measured(() =>
          runPoll(
            {
              plan,
              metrics,
              ...dynamoDbStores({ client: options.clientOf(), table: TABLE, now: () => now }),
              notifier,
              tripwires: options.tripwires,
              owner: `poll-${index}`,
              now: () => now,
              leaseMs: 60_000,
            },
            stepAt(index),
          ).catch(() => undefined),
        )),
      };
      invocations.push(figures);
      options.onInvocation?.(figures);
    }
  };

  // The outage begins at step 75: the page; it ends after step 114: the resolve, after the hold-down; then the lone
  // cluster's outage, an hour after the fleet's ended.
  await pollSteps(74, 80, (sent) => sent >= 1);
  await pollSteps(115, 135, (sent) => sent >= 2);
  await pollSteps(115 + HOUR_STEPS, 115 + HOUR_STEPS + 8, (sent) => sent >= 3);
  return { subjects: subjects(), invocations, heapBeforeMb };
}
