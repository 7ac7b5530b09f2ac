import { readConfigFile } from '../io/input-files.ts';
import { deployPlan, renderPlan, teardownPlan } from '../shared/config/deploy-plan.ts';
import type { CommandOutput } from './command.ts';
import { UsageError } from './command.ts';
import { defineCommand } from './command-line.ts';

export interface DeployPlanOptions {
  readonly config?: string;
  readonly teardown?: boolean;
}

export const DEPLOY_PLAN_COMMAND = defineCommand({
  name: 'deploy-plan',
  summary: 'print every cdk command of a deployment, with its profile and Region, in the order AWS accepts',
  usage: ['sentinel deploy-plan --config FILE [--teardown]'],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the deployment configuration, e.g. config/sentinel.json' },
    teardown: { type: 'boolean', description: 'print the order that deletes the deployment instead' },
  },
  notes: [
    'Reads the configuration only, never AWS. Profiles are named ops and workload-ACCOUNT: use your own names.',
    'After each step, run its checks before the next: a later step fails when an earlier one did not finish.',
  ],
  run: (values, _, out) => deployPlanCommand(values, out),
});

/** The deploy (or teardown) order of a configuration (shared/config/deploy-plan.ts), printed as numbered steps. */
export async function deployPlanCommand(options: DeployPlanOptions, out: CommandOutput): Promise<number> {
  if (options.config === undefined) throw new UsageError('deploy-plan needs --config FILE');
  const { config } = readConfigFile(options.config);
  const steps = (options.teardown ? teardownPlan : deployPlan)(config, options.config);
  out.stdout(renderPlan(steps));
  return 0;
}
