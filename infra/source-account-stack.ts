import { CfnOutput, CfnParameter, Stack, type StackProps } from 'aws-cdk-lib';
import * as oam from 'aws-cdk-lib/aws-oam';
import type { Construct } from 'constructs';
import { SHARED_RESOURCE_TYPE } from './metrics-sink.ts';
import { namespaceFilter } from './watched-namespaces.ts';

export interface SourceAccountStackProps extends StackProps {
  /** The namespaces to share: those the poller reads. */
  readonly namespaces: readonly string[];
  /** The OpsStack's `SinkArn` output, when known at synth time (CDK context `sinkArn`); otherwise a parameter asks. */
  readonly sinkArn?: string;
}

/**
 * Deployed into each workload account, in the ops account's region: links the account to the ops account's OAM sink
 * and shares only the metric namespaces the poller reads. No logs, no traces, no other metrics.
 */
export class SourceAccountStack extends Stack {
  readonly link: oam.CfnLink;

  constructor(scope: Construct, id: string, props: SourceAccountStackProps) {
    super(scope, id, props);
    const sinkArn = new CfnParameter(this, 'SinkArn', {
      type: 'String',
      description: "The SinkArn output of the ops account's OpsStack",
      allowedPattern: '^arn:aws[a-z-]*:oam:[a-z0-9-]+:\\d{12}:sink/[A-Za-z0-9-]+$',
      constraintDescription: 'must be an OAM sink ARN, e.g. arn:aws:oam:eu-west-1:111122223333:sink/0123abcd-...',
      ...(props.sinkArn && { default: props.sinkArn }),
    });
    this.link = new oam.CfnLink(this, 'MetricsLink', {
      sinkIdentifier: sinkArn.valueAsString,
      labelTemplate: '$AccountName',
      resourceTypes: [SHARED_RESOURCE_TYPE],
      linkConfiguration: { metricConfiguration: { filter: namespaceFilter(props.namespaces) } },
    });
    new CfnOutput(this, 'LinkArn', { value: this.link.attrArn });
  }
}
