import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { messagesWaiting } from './dead-letter-queue.ts';

/**
 * The alarm on a forwarding dead-letter queue, the same name in every account and Region that forwards: an alarm's
 * name is unique per account and Region only, and the ops account matches them all by this one name.
 */
export const forwardingAlarmName = (deployment: string): string => `${deployment}-ForwardingDeadLetters`;

/**
 * The state changes of alarms, as CloudWatch sends them to the default bus of the alarm's account and Region
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch-and-eventbridge.html).
 */
const ALARM_STATE_CHANGE: events.EventPattern = {
  source: ['aws.cloudwatch'],
  detailType: ['CloudWatch Alarm State Change'],
};

/**
 * Where an account forwards from, an alarm on its forwarding dead-letter queue, and the pattern that forwards that
 * alarm's state changes with the other events to the ops account: its alarm actions could reach no one there.
 */
export function forwardingDeadLetterAlarm(
  scope: Construct,
  deployment: string,
  deadLetterQueue: sqs.IQueue,
): { alarm: cloudwatch.Alarm; pattern: events.EventPattern } {
  const alarm = new cloudwatch.Alarm(scope, 'DeadLettersAlarm', {
    alarmName: forwardingAlarmName(deployment),
    alarmDescription:
      'Events this account could not forward to the ops account wait in the forwarding dead-letter queue: node churn or tripwire state changes the ops account never saw. docs/operating.md, "Forwarding dead letters", says what to do.',
    ...messagesWaiting(deadLetterQueue),
  });
  return { alarm, pattern: { ...ALARM_STATE_CHANGE, resources: [alarm.alarmArn] } };
}

export interface ForwardingAlarmRoutesProps {
  readonly deployment: string;
  /** The buses forwarded alarms arrive on: the default bus, and the bus the workload accounts forward to. */
  readonly buses: readonly events.IEventBus[];
  /** The paging topic, whose subscribers without a cluster filter hear the pipeline's own alarms. */
  readonly topic: sns.ITopic;
  /** The deployment's dead-letter queue: a page EventBridge could not publish waits there, under its own alarm. */
  readonly deadLetterQueue: sqs.IQueue;
}

/**
 * In the ops account: the forwarding dead-letter alarms of every account and Region, forwarded here, page through the
 * paging topic as the pipeline's own alarms do, naming the account and Region whose queue holds events.
 */
export class ForwardingAlarmRoutes extends Construct {
  private readonly rules: events.Rule[];

  constructor(scope: Construct, id: string, props: ForwardingAlarmRoutesProps) {
    super(scope, id);
    const state = events.EventField.fromPath('$.detail.state.value');
    const message = events.RuleTargetInput.fromText(
      `${forwardingAlarmName(props.deployment)} is ${state} in account ${events.EventField.account}, Region ${events.EventField.region}: events it could not forward to the ops account (node churn, tripwire state changes) wait in its forwarding dead-letter queue. See docs/operating.md, "Forwarding dead letters".`,
    );
    this.rules = props.buses.map(
      (bus, index) =>
        new events.Rule(this, index === 0 ? 'DefaultBus' : `Bus${index}`, {
          description: 'k8s-incident-sentinel: forwarding dead-letter alarms of other accounts and Regions page',
          eventBus: bus,
          eventPattern: { ...ALARM_STATE_CHANGE, detail: { alarmName: [forwardingAlarmName(props.deployment)] } },
          targets: [
            new targets.SnsTopic(props.topic, {
              message,
              retryAttempts: 10,
              maxEventAge: Duration.hours(1),
              deadLetterQueue: props.deadLetterQueue,
            }),
          ],
        }),
    );
  }

  /**
   * The same state changes also go into the delivery queue, which pages PagerDuty, Opsgenie and Jira Service Management
   * with them as it does with the ops account's own alarms (PagingDelivery.pageOnAlarms).
   */
  pageThrough(queue: sqs.IQueue, deadLetterQueue: sqs.IQueue): void {
    for (const rule of this.rules) {
      rule.addTarget(
        new targets.SqsQueue(queue, { deadLetterQueue, retryAttempts: 5, maxEventAge: Duration.hours(1) }),
      );
    }
  }
}
