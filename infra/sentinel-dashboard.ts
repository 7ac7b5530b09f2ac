import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { displayNameOf } from '../shared/config/cluster-identity.ts';
import type { ClusterConfig, DeploymentConfig } from '../shared/config/deployment-config.ts';
import {
  AUTO_SCALING_METRICS,
  CONTAINER_INSIGHTS_METRICS,
  EKS_METRICS,
  type RequestVerb,
} from '../shared/config/metric-catalogue.ts';
import { describeWhere } from '../shared/notify/notification-text.ts';
import { pipelineMetric } from './pipeline-metrics.ts';

export interface SentinelDashboardProps {
  readonly dashboardName: string;
  readonly config: DeploymentConfig;
  /** The stack name: the `Deployment` dimension of the poller's metrics. */
  readonly deployment: string;
  /** The poller, whose invocations the graph of polls reads. */
  readonly poller: lambda.IFunction;
  readonly alarms: readonly cloudwatch.IAlarm[];
}

const PERIOD = Duration.minutes(1);
const WIDE = 24;
const QUARTER = 6;
const HEIGHT = 6;

/**
 * What on-call looks at after a page: for each cluster, the signals the rules read (API latency, webhook latency and
 * rejections, node churn), and below them the pipeline's own health. Metrics of clusters in other accounts or regions
 * carry that account and region, and are read through the OAM link.
 */
export class SentinelDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: SentinelDashboardProps) {
    super(scope, id);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Sentinel self-monitoring',
        alarms: [...props.alarms],
        width: WIDE,
        height: 3,
      }),
    );
    for (const cluster of props.config.clusters) this.dashboard.addWidgets(...clusterWidgets(cluster));
    this.dashboard.addWidgets(...pipelineWidgets(props.poller, props.deployment));
  }
}

function clusterWidgets(cluster: ClusterConfig): cloudwatch.IWidget[] {
  const where = describeWhere({
    ...(cluster.accountId && { account: cluster.accountId }),
    ...(cluster.region && { region: cluster.region }),
  });
  const header = new cloudwatch.TextWidget({
    markdown: `### ${displayNameOf(cluster)}${where ? ` (${where})` : ''}`,
    width: WIDE,
    height: 1,
  });
  const metric = (namespace: string, metricName: string, dimensionsMap: Record<string, string>, statistic: string) =>
    new cloudwatch.Metric({
      namespace,
      metricName,
      dimensionsMap,
      statistic,
      period: PERIOD,
      ...(cluster.accountId && { account: cluster.accountId }),
      ...(cluster.region && { region: cluster.region }),
    });
  const eks = (name: string, statistic: string = cloudwatch.Stats.MAXIMUM) =>
    metric(EKS_METRICS.namespace, name, { [EKS_METRICS.dimension]: cluster.name }, statistic);
  const maxOf = (label: string, metrics: Record<string, cloudwatch.IMetric>) =>
    new cloudwatch.MathExpression({
      expression: `MAX([${Object.keys(metrics).join(', ')}])`,
      usingMetrics: metrics,
      label,
      period: PERIOD,
    });

  const widgets: cloudwatch.IWidget[] = [header];
  if (cluster.source.profile === 'eks') {
    // EKS documents Average as the statistic of its `_P99` metrics (https://docs.aws.amazon.com/eks/latest/userguide/cloudwatch.html).
    const p99 = (verb: RequestVerb) => eks(EKS_METRICS.requestDurationP99(verb), cloudwatch.Stats.AVERAGE);
    widgets.push(
      new cloudwatch.GraphWidget({
        title: `${cluster.name}: API request p99 (s)`,
        left: [
          maxOf('write (POST, PUT, PATCH, DELETE)', {
            post: p99('POST'),
            put: p99('PUT'),
            patch: p99('PATCH'),
            del: p99('DELETE'),
          }),
          maxOf('read (GET, LIST)', { get: p99('GET'), list: p99('LIST') }),
        ],
        width: QUARTER,
        height: HEIGHT,
      }),
      new cloudwatch.GraphWidget({
        title: `${cluster.name}: admission webhook p99 (s)`,
        left: [
          maxOf('webhook p99', {
            admit: eks(EKS_METRICS.webhookDurationP99('ADMIT'), cloudwatch.Stats.AVERAGE),
            validating: eks(EKS_METRICS.webhookDurationP99('VALIDATING'), cloudwatch.Stats.AVERAGE),
          }),
        ],
        width: QUARTER,
        height: HEIGHT,
      }),
      new cloudwatch.GraphWidget({
        title: `${cluster.name}: webhook rejections per request`,
        left: [
          new cloudwatch.MathExpression({
            expression: 'rejections / requests',
            usingMetrics: {
              rejections: eks(EKS_METRICS.webhookRejections, cloudwatch.Stats.SUM),
              requests: eks(EKS_METRICS.webhookRequests, cloudwatch.Stats.SUM),
            },
            label: 'rejection ratio',
            period: PERIOD,
          }),
        ],
        leftYAxis: { min: 0, max: 1 },
        width: QUARTER,
        height: HEIGHT,
      }),
      new cloudwatch.GraphWidget({
        title: `${cluster.name}: nodes`,
        left: nodeMetrics(cluster, metric),
        width: QUARTER,
        height: HEIGHT,
      }),
    );
  }
  const custom = Object.entries(cluster.source.custom).flatMap(([signal, source]) =>
    source ? [metric(source.namespace, source.metricName, source.dimensions, source.stat).with({ label: signal })] : [],
  );
  if (custom.length > 0) {
    widgets.push(
      new cloudwatch.GraphWidget({
        title: `${cluster.name}: custom signals`,
        left: custom,
        width: QUARTER,
        height: HEIGHT,
      }),
    );
  }
  return widgets;
}

/** Node groups' GroupTerminatingInstances summed into one line, and Container Insights' NotReady count. */
function nodeMetrics(
  cluster: ClusterConfig,
  metric: (namespace: string, name: string, dimensions: Record<string, string>, statistic: string) => cloudwatch.Metric,
): cloudwatch.IMetric[] {
  const terminating = cluster.source.nodeGroups.map((group) =>
    metric(
      AUTO_SCALING_METRICS.namespace,
      AUTO_SCALING_METRICS.terminating,
      { [AUTO_SCALING_METRICS.dimension]: group },
      cloudwatch.Stats.MAXIMUM,
    ),
  );
  const lines: cloudwatch.IMetric[] = [];
  const [only] = terminating;
  if (terminating.length === 1 && only) lines.push(only.with({ label: 'nodes being replaced' }));
  if (terminating.length > 1) {
    const usingMetrics = Object.fromEntries(terminating.map((m, index) => [`group${index}`, m]));
    lines.push(
      new cloudwatch.MathExpression({
        expression: `SUM([${Object.keys(usingMetrics).join(', ')}])`,
        usingMetrics,
        label: 'nodes being replaced',
        period: PERIOD,
      }),
    );
  }
  if (cluster.source.containerInsights) {
    lines.push(
      metric(
        CONTAINER_INSIGHTS_METRICS.namespace,
        CONTAINER_INSIGHTS_METRICS.failedNodes,
        { [CONTAINER_INSIGHTS_METRICS.dimension]: cluster.name },
        cloudwatch.Stats.MAXIMUM,
      ).with({ label: 'nodes NotReady' }),
    );
  }
  return lines;
}

function pipelineWidgets(poller: lambda.IFunction, deployment: string): cloudwatch.IWidget[] {
  const graph = (title: string, left: cloudwatch.IMetric[]) =>
    new cloudwatch.GraphWidget({ title, left, width: QUARTER, height: HEIGHT });
  return [
    new cloudwatch.TextWidget({ markdown: '### Sentinel pipeline', width: WIDE, height: 1 }),
    // What the heartbeat and idle-poll alarms read.
    graph('Poller runs per minute', [
      poller.metricInvocations({ period: Duration.minutes(1), statistic: cloudwatch.Stats.SUM, label: 'invocations' }),
      pipelineMetric('IdlePolls', deployment, { label: 'idle polls' }),
    ]),
    graph('CloudWatch metrics requested', [
      pipelineMetric('MetricsRequested', deployment, { label: 'metrics' }),
      // A blind tripwire keeps its cluster read every minute: the requested metrics go up tenfold with nothing failing.
      pipelineMetric('BlindTripwires', deployment, {
        statistic: cloudwatch.Stats.MAXIMUM,
        label: 'blind tripwires',
      }).with({ color: cloudwatch.Color.RED }),
    ]),
    graph('Notifications', [
      pipelineMetric('NotificationsSent', deployment, { label: 'sent' }),
      pipelineMetric('NotificationFailures', deployment, { label: 'failed' }),
    ]),
    graph('Poll duration (ms)', [
      pipelineMetric('PollDurationMs', deployment, { statistic: cloudwatch.Stats.p(99), label: 'p99' }),
      pipelineMetric('PollDurationMs', deployment, { statistic: cloudwatch.Stats.MAXIMUM, label: 'max' }),
    ]),
  ];
}
