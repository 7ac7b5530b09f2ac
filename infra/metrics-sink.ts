import * as oam from 'aws-cdk-lib/aws-oam';
import { Construct } from 'constructs';

/** The only kind of data the workload accounts share with the ops account. */
export const SHARED_RESOURCE_TYPE = 'AWS::CloudWatch::Metric';

export interface MetricsSinkProps {
  readonly sinkName: string;
  /** Workload accounts allowed to link to the sink. */
  readonly accounts: readonly string[];
}

/**
 * The OAM sink that makes the ops account a CloudWatch monitoring account: workload accounts link to it and share
 * their metrics, and the poller then reads those metrics with its own GetMetricData (passing the account id), with no
 * role to assume in the workload account. OAM is regional: a workload account links in the sink's region.
 */
export class MetricsSink extends Construct {
  readonly sink: oam.CfnSink;

  constructor(scope: Construct, id: string, props: MetricsSinkProps) {
    super(scope, id);
    this.sink = new oam.CfnSink(this, 'Sink', {
      name: props.sinkName,
      policy: {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'WorkloadAccountsLinkTheirMetrics',
            Effect: 'Allow',
            Principal: { AWS: [...props.accounts] },
            Action: ['oam:CreateLink', 'oam:UpdateLink'],
            Resource: '*',
            Condition: { 'ForAllValues:StringEquals': { 'oam:ResourceTypes': [SHARED_RESOURCE_TYPE] } },
          },
        ],
      },
    });
  }

  get sinkArn(): string {
    return this.sink.attrArn;
  }
}
