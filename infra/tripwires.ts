import { Duration, Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { DeploymentConfig } from '../shared/config/deployment-config.ts';
import { tripwireAlarmName } from '../shared/pipeline/alarm-names.ts';
import {
  configuredTripwire,
  renderTripwireExpression,
  TRIPWIRE_METRICS,
  tripwireMetricSources,
} from '../shared/pipeline/tripwire-alarm.ts';

export interface TripwiresProps {
  readonly config: DeploymentConfig;
  readonly deployment: string;
  /** The function that records a tripwire's state for the polls to read. */
  readonly target: lambda.IFunction;
  readonly deadLetterQueue: sqs.IQueue;
}

/**
 * One metric-math alarm per cluster, built from the definition in shared/pipeline/tripwire-alarm.ts that replay
 * emulates: slow writes, a share of 5xx and 429, or a webhook failing closed, with missing data breaching. It costs one
 * alarm metric per metric it reads ($0.10 a month each) and watches every minute; its state changes reach the tripwire
 * function through EventBridge, which switches that cluster between the slow cadence and every minute for the next
 * polls.
 */
export class Tripwires extends Construct {
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: TripwiresProps) {
    super(scope, id);
    const { tripwire } = props.config.poll;
    const region = Stack.of(this).region;
    this.alarms = props.config.clusters.flatMap((cluster) => {
      const definition = configuredTripwire(cluster, tripwire);
      if (!definition) return [];
      const sources = tripwireMetricSources(cluster);
      // Alarms watch only their own region's metrics; configVerdict warns about such a cluster.
      if (cluster.region && !Token.isUnresolved(region) && cluster.region !== region) return [];
      const usingMetrics = Object.fromEntries(
        definition.metrics.map((metricId) => {
          const spec = sources.get(TRIPWIRE_METRICS[metricId].signal);
          if (!spec) throw new Error(`tripwire of ${cluster.name}: no source for ${metricId}`);
          return [
            metricId,
            new cloudwatch.Metric({
              namespace: spec.namespace,
              metricName: spec.metricName,
              dimensionsMap: { ...spec.dimensions },
              statistic: spec.statistic,
              period: Duration.seconds(definition.periodSeconds),
              ...(cluster.accountId && { account: cluster.accountId }),
            }),
          ];
        }),
      );
      return [
        new cloudwatch.Alarm(this, `Tripwire-${cluster.name}`, {
          alarmName: tripwireAlarmName(props.deployment, cluster.name),
          alarmDescription: `k8s-incident-sentinel tripwire for ${cluster.name}: polls it every minute while ${definition.legs.map((leg) => leg.name).join(', ')} or missing data say something may be wrong. It pages no one by itself.`,
          metric: new cloudwatch.MathExpression({
            expression: renderTripwireExpression(definition.expression),
            usingMetrics,
            period: Duration.seconds(definition.periodSeconds),
            label: `tripwire ${cluster.name}`,
          }),
          threshold: definition.threshold,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: definition.evaluationPeriods,
          datapointsToAlarm: definition.datapointsToAlarm,
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
