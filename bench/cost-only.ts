/**
 * `npx tsx bench/cost-only.ts`: section 3 alone, the cost per cluster-month with the defaults and with the small-fleet
 * settings, for a change to the stack, the tripwire or a price, in a few minutes instead of a whole `npm run bench`.
 * It replays the quiet week at every slow cadence and synthesizes both stacks, as `npm run bench` does, and takes the
 * measured poll footprint and fleet polls from the last full run's bench/results.json. It prints; it writes nothing.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readConfigFile } from '../io/input-files.ts';
import { compileRuleSet } from '../shared/config/deployment-config.ts';
import { measureCadenceOptions } from './cadence-options.ts';
import { type CostModel, costInputsFrom, costModel } from './cost-model.ts';
import { synthesizeDeployedStack } from './deployed-stack.ts';
import { loadCorpus, measureDetectionQuality } from './detection-quality.ts';
import { MAX_COST_PER_CLUSTER } from './goals.ts';
import { costItems, dollars, table } from './report/markdown.ts';
import type { BenchResults } from './report.ts';
import { smallFleetQuietShare, withSmallFleetSettings } from './small-fleet.ts';

const QUIET_WEEK = 'healthy-noisy-week.json';
const at = (file: string) => fileURLToPath(new URL(file, import.meta.url));

const last = JSON.parse(readFileSync(at('./results.json'), 'utf8')) as BenchResults;
const ruleSet = compileRuleSet([], 'rules');
const corpus = (await loadCorpus(at('../scenarios'))).filter((s) => s.name === QUIET_WEEK);
const quietWeek = corpus[0]?.scenario;
const quiet = (await measureDetectionQuality(ruleSet, corpus)).scenarios[0];
if (!quietWeek || !quiet) throw new Error(`bench: scenarios/${QUIET_WEEK} is missing`);
const cadenceOptions = await measureCadenceOptions({ dir: at('../scenarios'), names: [QUIET_WEEK] }, QUIET_WEEK);

const stack = synthesizeDeployedStack();
const smallFleetConfig = withSmallFleetSettings(stack.configFile);
const smallFleetStack = synthesizeDeployedStack(smallFleetConfig.file);
try {
  const { config } = readConfigFile(stack.configFile);
  const inputs = costInputsFrom({
    config,
    signals: ruleSet.signals(),
    quietWeek,
    quiet,
    footprint: last.footprint,
    fleet: last.fleet,
    cadenceOptions: [],
  });
  const cost = costModel({ ...inputs, stack });
  const smallFleet = costModel({
    ...inputs,
    quietPolledShare: smallFleetQuietShare(cadenceOptions),
    stack: smallFleetStack,
  });
  // Three decimals, as the goals table has them: a cost rounded to the goal's cents could hide that it is above it.
  const perCluster = (model: CostModel, clusters: number) =>
    `$${(model.fleets.find((f) => f.clusters === clusters)?.perCluster ?? Number.NaN).toFixed(3)}`;
  const sizes = cost.fleets.map((f) => f.clusters);
  process.stdout.write(
    [
      table(
        ['clusters', 'goal per cluster-month', 'defaults', 'small-fleet settings'],
        sizes.map((n) => [
          n.toLocaleString('en-US'),
          dollars(MAX_COST_PER_CLUSTER[n] ?? Number.NaN),
          perCluster(cost, n),
          perCluster(smallFleet, n),
        ]),
      ),
      '',
      `Small-fleet settings, per month (quiet week read ${(smallFleet.quietPolledShare * 100).toFixed(1)} % of cluster-minutes; defaults ${(cost.quietPolledShare * 100).toFixed(1)} %):`,
      '',
      costItems(smallFleet),
      '',
    ].join('\n'),
  );
} finally {
  smallFleetStack.dispose();
  smallFleetConfig.dispose();
  stack.dispose();
}
