import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SecretReference } from '../shared/config/deployment-config.ts';
import { messagesWaiting } from './dead-letter-queue.ts';
import { FUNCTION_ACCESS } from './function-access.ts';
import { pipelineMetric } from './pipeline-metrics.ts';
import { bindSecretReads, type SentinelFunction } from './sentinel-function.ts';

export interface SelfMonitoringProps {
  /** The stack name: the `Deployment` dimension of the poller's metrics. */
  readonly deployment: string;
  /** Every alarm name starts with this; the paging topic and the key let alarms with this prefix publish. */
  readonly alarmNamePrefix: string;
  readonly poller: SentinelFunction;
  readonly pollerTimeout: Duration;
  /** The dead-letter queue of everything the pipeline gave up on. */
  readonly deadLetterQueue: sqs.IQueue;
  /**
   * The alarms that warn before polls fail (throttled runs, polls near the timeout): `selfMonitoring.earlyWarnings`.
   * Without them, a poller that gets slow pages once its polls fail, stop or are dead-lettered.
   */
  readonly earlyWarnings: boolean;
  /** Where the alarms page: the paging topic. */
  readonly topic: sns.ITopic;
  /** The heartbeat outside AWS the poller pings (`selfMonitoring.externalHeartbeat`): the poller reads its secrets. */
  readonly externalHeartbeat?: {
    readonly urlSecret: SecretReference;
    readonly authorizationSecret?: SecretReference;
  };
}

const PER_MINUTE = { period: Duration.minutes(1), statistic: cloudwatch.Stats.SUM };

/**
 * Alarms on the pipeline itself, sent to the paging topic (to its subscribers without a cluster filter: an alarm
 * carries no `cluster` attribute). The heartbeat alarm is the dead man's switch: a poller that is not invoked pages,
 * missing data breaching; one that is invoked and never does its job pages as `IdlePolls`.
 */
export class SelfMonitoring extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: SelfMonitoringProps) {
    super(scope, id);
    // The dead man's switch reads the poller's own Invocations (AWS/Lambda, free to publish), and polls that ran
    // without doing their job have an alarm of their own on `IdlePolls`, sent only by such a poll: two alarms on a
    // metric each ($0.20 a month, https://aws.amazon.com/cloudwatch/pricing/) instead of a custom metric sent by every
    // poll ($0.30) and its alarm. No metric math: CloudWatch skips a newest datapoint that has not arrived yet when
    // the evaluation range holds enough others ("How alarm state is evaluated when data is missing",
    // https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarms-and-missing-data.html), where FILL would
    // read a late idle poll as none.
    this.alarm('PollerHeartbeat', props, {
      alarmDescription:
        'The poller was not invoked in any of the last 5 minutes: its schedule is disabled or failing, or every run is throttled. Nothing is watching the clusters.',
      metric: props.poller.function.metricInvocations(PER_MINUTE),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 5,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    this.alarm('IdlePolls', props, {
      alarmDescription:
        'Polls ran but did not do their job in each of the last 5 minutes: their step was taken by a later poll (a clock problem, or polls slower than a minute), or they read only gaps for every cluster. Nothing is watching the clusters.',
      metric: pipelineMetric('IdlePolls', props.deployment),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 5,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // Every failed invocation counts here, polls that fail included: the poller emits no failure metric of its own,
    // and the heartbeat counts failed invocations as invocations, so that one fault pages once.
    this.alarm('PollerErrors', props, {
      alarmDescription:
        'The poller failed in 3 of the last 5 minutes: a poll that failed, a timeout, or a start that did not get as far as polling. See its log group for the error. While every poll fails nothing is watching the clusters, and this is the only page: PollerHeartbeat counts failed invocations as invocations.',
      metric: props.poller.function.metricErrors(PER_MINUTE),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (props.earlyWarnings) this.earlyWarnings(props);
    // The dead man's switch outside AWS: the poller reads the ping URL (and its Authorization) at run time.
    const heartbeat = props.externalHeartbeat;
    if (heartbeat) {
      const secrets = [heartbeat.urlSecret, ...(heartbeat.authorizationSecret ? [heartbeat.authorizationSecret] : [])];
      bindSecretReads(props.poller, 'ReadHeartbeatSecrets', secrets, FUNCTION_ACCESS.poller);
    }
    this.alarm('NotificationFailures', props, {
      alarmDescription:
        'Publishing notifications to SNS failed in 3 of the last 5 minutes. They stay in the outbox and are retried every poll; check the poller log for the SNS error.',
      metric: pipelineMetric('NotificationFailures', props.deployment),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarm('StepsQuarantined', props, {
      alarmDescription:
        'A step was quarantined: the table refuses its outcome for good (an item DynamoDB will never take), so its pages and incident changes were not applied. Polling goes on. The poller log ("step quarantined") names the step, and its STEP item the reason.',
      metric: pipelineMetric('StepsQuarantined', props.deployment),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // Clusters CloudWatch would not answer for are skipped, not judged on missing data, so not even signals-missing
    // fires for them: a lasting AccessDenied or a broken OAM link would otherwise leave on-call blind in silence.
    this.alarm('UnreadableClusters', props, {
      alarmDescription:
        'CloudWatch could not be read for some clusters in each of the last 5 minutes: they are not being watched. Check the poller log ("metrics unreadable") for the error, the OAM links and the poller role.',
      metric: pipelineMetric('UnreadableClusters', props.deployment),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 5,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarm('DeadLetters', props, {
      alarmDescription:
        'Messages are waiting in the dead-letter queue: something was given up on. Read them (each says where it comes from), fix the cause, then redrive or purge.',
      ...messagesWaiting(props.deadLetterQueue),
    });
  }

  /** Throttled runs and polls near the timeout: polls still succeed, but not for long. */
  private earlyWarnings(props: SelfMonitoringProps): void {
    const fn = props.poller.function;
    this.alarm('PollerThrottles', props, {
      alarmDescription:
        'Poller invocations were throttled in 3 of the last 5 minutes: runs are overlapping their reserved concurrency, usually because polls got slow.',
      metric: fn.metricThrottles(PER_MINUTE),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const nearTimeout = Math.round(props.pollerTimeout.toMilliseconds() * 0.8);
    this.alarm('PollerDuration', props, {
      alarmDescription: `A poll took more than ${nearTimeout} ms (80% of the timeout) in 2 of the last 3 five-minute windows: CloudWatch or DynamoDB are slow, or there are too many clusters for one poller.`,
      metric: fn.metricDuration({ period: Duration.minutes(5), statistic: cloudwatch.Stats.MAXIMUM }),
      threshold: nearTimeout,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  private alarm(id: string, props: SelfMonitoringProps, alarmProps: Omit<cloudwatch.AlarmProps, 'alarmName'>): void {
    const alarm = new cloudwatch.Alarm(this, id, { ...alarmProps, alarmName: `${props.alarmNamePrefix}${id}` });
    const page = new actions.SnsAction(props.topic);
    alarm.addAlarmAction(page);
    alarm.addOkAction(page);
    this.alarms.push(alarm);
  }
}
