import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ClusterConfig, DeploymentConfig } from '../shared/config/deployment-config.ts';
import { Tripwires } from './tripwires.ts';

export interface TripwireStackProps extends StackProps {
  readonly config: Pick<DeploymentConfig, 'poll'>;
  readonly deployment: string;
  readonly clusters: readonly ClusterConfig[];
}

/**
 * Tripwire alarms of one Region, in the ops account: a share of that Region's clusters small enough for
 * CloudFormation's quotas (shared/config/deployment-shape.ts, tripwireStacks). Its alarms read workload accounts'
 * metrics through the ops account's sink of the Region, so it deploys after their links and sharing roles. Its
 * template is larger than the 51,200 bytes CloudFormation takes in a request, so cdk uploads it through the
 * bootstrap bucket: the ops account is bootstrapped in every Region with tripwires (docs/deploy.md).
 */
export class TripwireStack extends Stack {
  readonly tripwires: Tripwires;

  constructor(scope: Construct, id: string, props: TripwireStackProps) {
    super(scope, id, props);
    this.tripwires = new Tripwires(this, 'Tripwires', {
      config: props.config,
      deployment: props.deployment,
      clusters: props.clusters,
    });
  }
}
