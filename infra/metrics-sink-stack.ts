import { CfnOutput, LegacyStackSynthesizer, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { MetricsSink } from './metrics-sink.ts';

export interface MetricsSinkStackProps extends StackProps {
  readonly sinkName: string;
  /** Workload accounts with clusters in this stack's Region. */
  readonly accounts: readonly string[];
}

/**
 * The ops account's OAM sink in a Region other than the ops stack's. OAM is regional: a workload account's cluster in
 * us-east-1 can only be read by the poller through a sink of the ops account in us-east-1. No assets and a small
 * template, so the Region needs no `cdk bootstrap`: LegacyStackSynthesizer asks CloudFormation for no bootstrap role
 * and no bootstrap version (BootstraplessSynthesizer would still name the bootstrap's deploy and execution roles).
 */
export class MetricsSinkStack extends Stack {
  readonly sink: MetricsSink;

  constructor(scope: Construct, id: string, props: MetricsSinkStackProps) {
    super(scope, id, { ...props, synthesizer: new LegacyStackSynthesizer() });
    this.sink = new MetricsSink(this, 'MetricsSink', { sinkName: props.sinkName, accounts: props.accounts });
    new CfnOutput(this, 'SinkArn', {
      value: this.sink.sinkArn,
      description: `Deploy ${id.replace('MetricsSinkStack', 'SourceAccountStack')} into each workload account of this Region with this ARN (-c sinkArn=...)`,
    });
  }
}
