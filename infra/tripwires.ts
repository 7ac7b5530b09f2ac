import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';
import { displayNameOf } from '../shared/config/cluster-identity.ts';
import type { ClusterConfig, DeploymentConfig } from '../shared/config/deployment-config.ts';
import { tripwireAlarmName, tripwireAlarmPrefix } from '../shared/pipeline/alarm-names.ts';
import {
  configuredTripwire,
  renderTripwireExpression,
  TRIPWIRE_METRICS,
  tripwireMetricSources,
} from '../shared/pipeline/tripwire-alarm.ts';

export interface TripwiresProps {
  readonly config: Pick<DeploymentConfig, 'poll'>;
  /** The ops stack's name: alarm names start with `<deployment>-tripwire-`. */
  readonly deployment: string;
  /** The clusters to watch: all of them in this stack's Region (shared/config/deployment-shape.ts, tripwireStacks). */
  readonly clusters: readonly ClusterConfig[];
}

/**
 * One metric-math alarm per cluster, built from the definition in shared/pipeline/tripwire-alarm.ts that replay
 * emulates: slow writes, a share of 5xx and 429, a webhook failing closed or nodes NotReady, with missing data
 * breaching, in ALARM while 1 of its last 3 one-minute datapoints breaches (so that it holds through a gap in a
 * metric). It costs one alarm metric per metric it reads ($0.10 a month each). It pages no one: its state changes reach
 * the tripwire function through EventBridge (`TripwireStateChanges`), which switches that cluster between the slow
 * cadence and every minute for the next polls.
 */
export class Tripwires extends Construct {
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: TripwiresProps) {
    super(scope, id);
    const { tripwire } = props.config.poll;
    this.alarms = props.clusters.flatMap((cluster) => {
      const definition = configuredTripwire(cluster, tripwire);
      if (!definition) return [];
      const sources = tripwireMetricSources(cluster);
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
        new cloudwatch.Alarm(this, `Tripwire-${displayNameOf(cluster)}`, {
          alarmName: tripwireAlarmName(props.deployment, displayNameOf(cluster)),
          alarmDescription: `k8s-incident-sentinel tripwire for ${displayNameOf(cluster)}: polls it every minute while ${definition.legs.map((leg) => leg.name).join(', ')} or missing data say something may be wrong, and for ${definition.evaluationPeriods - 1 === 1 ? 'a minute' : `${definition.evaluationPeriods - 1} minutes`} after. It pages no one by itself.`,
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
  }
}

/**
 * The state changes of every tripwire alarm of the deployment in this account and Region, matched by the alarm
 * names' prefix: a pattern that lists alarm ARNs outgrows EventBridge's 2,048 characters past some 25 clusters
 * (Event pattern size, https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html), a prefix never does.
 */
export function tripwireStateChangePattern(deployment: string): events.EventPattern {
  return {
    source: ['aws.cloudwatch'],
    detailType: ['CloudWatch Alarm State Change'],
    detail: { alarmName: [{ prefix: tripwireAlarmPrefix(deployment) }] },
  };
}

export interface TripwireStateChangesProps {
  readonly deployment: string;
  /** The tripwire function in the ops Region, or the ops Region's default bus from any other Region. */
  readonly target: events.IRuleTarget;
  readonly description: string;
}

/** The rule that takes tripwire alarm state changes of this account and Region where they are recorded. */
export class TripwireStateChanges extends Construct {
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: TripwireStateChangesProps) {
    super(scope, id);
    this.rule = new events.Rule(this, 'Rule', {
      description: props.description,
      eventPattern: tripwireStateChangePattern(props.deployment),
      targets: [props.target],
    });
  }
}
