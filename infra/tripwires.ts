import { Duration, Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ClusterConfig, DeploymentConfig } from '../shared/config/deployment-config.ts';
import { tripwireAlarmName } from '../shared/pipeline/alarm-names.ts';

export interface TripwiresProps {
  readonly config: DeploymentConfig;
  readonly deployment: string;
  /** The function that records a tripwire's state for the polls to read. */
  readonly target: lambda.IFunction;
  readonly deadLetterQueue: sqs.IQueue;
}

/**
 * One alarm per cluster on the metric a stalled write path moves first: the PATCH p99 that kubelets and controllers
 * pay on every status update. It costs one alarm metric ($0.10 a month) and watches every minute for free; its state
 * changes reach the tripwire function through EventBridge, which switches that cluster between the slow cadence and
 * every minute for the next polls.
 * Missing data is breaching, so a cluster that goes dark is polled every minute too, and signals-missing can page.
 */
export class Tripwires extends Construct {
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: TripwiresProps) {
    super(scope, id);
    const threshold = props.config.poll.tripwire.writeP99Seconds;
    const region = Stack.of(this).region;
    this.alarms = props.config.clusters.flatMap((cluster) => {
      const metric = tripwireMetric(cluster);
      if (!metric) return [];
      // Alarms watch only their own region's metrics; configVerdict warns about such a cluster.
      if (cluster.region && !Token.isUnresolved(region) && cluster.region !== region) return [];
      return [
        new cloudwatch.Alarm(this, `Tripwire-${cluster.name}`, {
          alarmName: tripwireAlarmName(props.deployment, cluster.name),
          alarmDescription: `k8s-incident-sentinel tripwire for ${cluster.name}: polls it every minute while writes are slow or its metrics are missing. It pages no one by itself.`,
          metric,
          threshold,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          datapointsToAlarm: 1,
          treatMissingData: cloudwatch.TreatMissingData.BREACHING,
          actionsEnabled: false,
        }),
      ];
    });
    if (this.alarms.length === 0) return;
    new events.Rule(this, 'StateChanges', {
      description: 'k8s-incident-sentinel: tripwire alarm state changes arm and disarm minute-by-minute polling',
      eventPattern: {
        source: ['aws.cloudwatch'],
        detailType: ['CloudWatch Alarm State Change'],
        resources: this.alarms.map((alarm) => alarm.alarmArn),
      },
      targets: [
        new targets.LambdaFunction(props.target, {
          retryAttempts: 5,
          maxEventAge: Duration.minutes(10),
          deadLetterQueue: props.deadLetterQueue,
        }),
      ],
    });
  }
}

/** The PATCH p99 of an EKS cluster, or the custom metric a cluster configured for its write p99; none otherwise. */
function tripwireMetric(cluster: ClusterConfig): cloudwatch.Metric | undefined {
  const custom = cluster.source.custom['apiserver.write.p99'];
  const spec = custom
    ? { namespace: custom.namespace, metricName: custom.metricName, dimensionsMap: custom.dimensions }
    : cluster.source.profile === 'eks'
      ? {
          namespace: 'AWS/EKS',
          metricName: 'apiserver_request_duration_seconds_PATCH_P99',
          dimensionsMap: { ClusterName: cluster.name },
        }
      : undefined;
  if (!spec) return undefined;
  return new cloudwatch.Metric({
    ...spec,
    statistic: 'Maximum',
    period: Duration.minutes(1),
    ...(cluster.accountId && { account: cluster.accountId }),
  });
}
