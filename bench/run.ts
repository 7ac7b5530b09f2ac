/**
 * `npm run bench`: detection quality against the scenario corpus and a CloudWatch-alarm baseline, cost per
 * cluster-month, one poll over growing fleets, and the Lambda bundles. Writes bench/results.json and bench/RESULTS.md.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { readConfigFile } from '../io/input-files.ts';
import { compileRuleSet } from '../shared/config/deployment-config.ts';
import { POLLER_MEMORY_MB } from '../shared/digest/cost-model.ts';
import { measureBundles } from './bundles.ts';
import { measureCadenceOptions } from './cadence-options.ts';
import { costInputsFrom, costModel } from './cost-model.ts';
import { synthesizeDeployedStack } from './deployed-stack.ts';
import { loadCorpus, measureDetectionQuality } from './detection-quality.ts';
import { measureFleetOutage } from './fleet-outage.ts';
import { measureFleetScale } from './fleet-scale.ts';
import { measureFleetSynth } from './fleet-synth.ts';
import { evaluateGoals } from './goals.ts';
import { measureNotificationSizes } from './notification-sizes.ts';
import { measurePollFootprint } from './poll-footprint.ts';
import { measureReadSizes } from './read-sizes.ts';
import { type BenchResults, renderResults } from './report.ts';
import { smallFleetQuietShare, withSmallFleetSettings } from './small-fleet.ts';

const started = performance.now();
const at = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const step = (text: string) =>
  process.stderr.write(`bench: ${text} (${Math.round((performance.now() - started) / 1000)} s)\n`);

/** The corpus's quiet week: what a month of a healthy cluster looks like to the cadence and its tripwire. */
const QUIET_WEEK = 'healthy-noisy-week.json';

const ruleSet = compileRuleSet([], 'rules');
const corpus = await loadCorpus(at('../scenarios'));
step('replaying the scenario corpus and the alarm baseline');
const detection = await measureDetectionQuality(ruleSet, corpus);
step('replaying the corpus with other cadences');
const cadenceOptions = await measureCadenceOptions(
  { dir: at('../scenarios'), names: corpus.map((s) => s.name) },
  QUIET_WEEK,
);

step('synthesizing the stack and its bundles');
const stack = synthesizeDeployedStack();
try {
  step('timing bundle imports');
  const bundles = measureBundles(stack);

  step('measuring the deployed poller against dynalite');
  const footprint = await measurePollFootprint();

  step('the worst minute of generated fleets of 1,000 to 10,000 clusters');
  const fleet = await measureFleetScale({ memoryMb: POLLER_MEMORY_MB });

  step(
    'every cluster of a deployment but one failing in the same minute, through the deployed functions, without and with faults',
  );
  const fleetOutage = await measureFleetOutage();

  const { config } = readConfigFile(stack.configFile);
  const quietWeek = corpus.find((s) => s.name === QUIET_WEEK)?.scenario;
  const quiet = detection.scenarios.find((s) => s.file === QUIET_WEEK);
  if (!quietWeek || !quiet) throw new Error('bench: the quiet week is missing');
  const costInputs = costInputsFrom({
    config,
    signals: ruleSet.signals(),
    quietWeek,
    quiet,
    footprint,
    fleet,
    cadenceOptions,
  });
  const cost = costModel({ ...costInputs, stack });
  step('synthesizing generated fleets of 1,000 and 10,000 clusters in 3 Regions and 20 accounts');
  const fleetSynth = measureFleetSynth(costInputs.tripwireChangesPerClusterMonth);
  step('pricing the same fleets with the small-fleet settings');
  const smallFleetConfig = withSmallFleetSettings(stack.configFile);
  const smallFleetStack = synthesizeDeployedStack(smallFleetConfig.file);
  const smallFleetCost = costModel({
    ...costInputs,
    quietPolledShare: smallFleetQuietShare(cadenceOptions),
    stack: smallFleetStack,
    cadenceOptions: [],
  });
  smallFleetStack.dispose();
  smallFleetConfig.dispose();

  step('rendering a one-cluster page and a 10,000-cluster fleet page for every protocol');
  const notificationSizes = await measureNotificationSizes();

  // The outage at the throughput line runs on its own (`--throttled`, bench/fleet-outage.ts), too long for this run:
  // its last figures are kept.
  const throttled = previousThrottled();
  const runSeconds = (performance.now() - started) / 1000;
  const results: BenchResults = {
    generatedAt: new Date().toISOString(),
    machine: { node: process.version, cpus: cpus().length, platform: `${process.platform}-${process.arch}` },
    runSeconds,
    goals: evaluateGoals({ detection, cost, smallFleetCost, fleet, bundles, runSeconds }),
    detection,
    footprint,
    cost,
    smallFleetCost,
    fleet,
    fleetSynth,
    readSizes: measureReadSizes(),
    bundles,
    notificationSizes,
    fleetOutage,
    ...(throttled && { fleetOutageThrottled: throttled }),
  };
  writeFileSync(at('./results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(at('./RESULTS.md'), renderResults(results));
  const missed = results.goals.filter((g) => !g.met);
  step(
    `wrote bench/results.json and bench/RESULTS.md; ${results.goals.length - missed.length} of ${results.goals.length} goals met`,
  );
  for (const goal of missed) process.stderr.write(`  not met: ${goal.goal} (${goal.measured})\n`);
} finally {
  stack.dispose();
}

/** The figures of the last run of the fleet outage at the throughput line, from the results this run replaces. */
function previousThrottled(): BenchResults['fleetOutageThrottled'] {
  const file = at('./results.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as Partial<BenchResults>).fleetOutageThrottled;
}
