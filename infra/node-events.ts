import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { forwardingDeadLetterAlarm } from './forwarding-alarms.ts';

/**
 * The events node churn is counted from, as EventBridge rule patterns: Auto Scaling's instance termination events
 * (https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-event-reference.html), EC2's state changes
 * into and out of service (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/monitoring-instance-state-changes.html)
 * and its spot warnings. Three patterns, since a state filter applies to every event a pattern matches.
 */
export const NODE_EVENT_PATTERNS: Readonly<Record<string, events.EventPattern>> = {
  AutoScalingTerminations: {
    source: ['aws.autoscaling'],
    detailType: ['EC2 Instance-terminate Lifecycle Action', 'EC2 Instance Terminate Successful'],
  },
  InstanceStateChanges: {
    source: ['aws.ec2'],
    detailType: ['EC2 Instance State-change Notification'],
    detail: { state: ['running', 'shutting-down', 'terminated'] },
  },
  SpotWarnings: {
    source: ['aws.ec2'],
    detailType: ['EC2 Spot Instance Interruption Warning', 'EC2 Instance Rebalance Recommendation'],
  },
};

/** The bus in the ops account that the workload accounts forward their node events to. */
export const nodeEventBusName = (opsStack: string) => `${opsStack}-node-events`;

export interface NodeEventRulesProps {
  /** The node-churn function. */
  readonly target: lambda.IFunction;
  readonly deadLetterQueue: sqs.IQueue;
  /** Workload accounts whose forwarded node events the ops account accepts. */
  readonly accounts: readonly string[];
}

/**
 * In the ops account: rules that hand node events to the node-churn function, from the default bus (the ops
 * account's own nodes) and, when clusters live in workload accounts, from a bus of their own whose policy lets exactly
 * the linked accounts put events on it (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-cross-account.html).
 */
export class NodeEventRules extends Construct {
  readonly linkedBus?: events.CfnEventBus;
  /** The bus the workload accounts forward to, to add rules on. */
  readonly linkedEventBus?: events.IEventBus;

  constructor(scope: Construct, id: string, props: NodeEventRulesProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const buses: { id: string; bus?: events.IEventBus }[] = [{ id: '' }];
    if (props.accounts.length > 0) {
      const name = nodeEventBusName(stack.stackName);
      const linked = new events.CfnEventBus(this, 'LinkedAccountsBus', {
        name,
        description: 'k8s-incident-sentinel: node events the linked workload accounts forward',
        policy: {
          Version: '2012-10-17',
          Statement: [
            {
              Sid: 'LinkedAccountsPutNodeEvents',
              Effect: 'Allow',
              Principal: { AWS: props.accounts.map((account) => `arn:${stack.partition}:iam::${account}:root`) },
              Action: 'events:PutEvents',
              Resource: `arn:${stack.partition}:events:${stack.region}:${stack.account}:event-bus/${name}`,
            },
          ],
        },
      });
      this.linkedBus = linked;
      const bus = events.EventBus.fromEventBusName(this, 'LinkedBus', name);
      this.linkedEventBus = bus;
      buses.push({ id: 'Linked', bus });
    }
    for (const { id: prefix, bus } of buses) {
      for (const [name, eventPattern] of Object.entries(NODE_EVENT_PATTERNS)) {
        const rule = new events.Rule(this, `${prefix}${name}`, {
          description: `k8s-incident-sentinel: node events counted as node churn${bus ? ', forwarded by workload accounts' : ''}`,
          eventPattern,
          ...(bus && { eventBus: bus }),
          targets: [
            new targets.LambdaFunction(props.target, {
              retryAttempts: 5,
              maxEventAge: Duration.hours(1),
              deadLetterQueue: props.deadLetterQueue,
            }),
          ],
        });
        if (this.linkedBus && bus) rule.node.addDependency(this.linkedBus);
      }
    }
  }
}

export interface EventForwardingProps {
  /** The bus to forward to: the ops account's node-event bus, or the ops Region's default bus. */
  readonly busArn: string;
  /** The events to forward, as rule patterns by rule id. */
  readonly patterns: Readonly<Record<string, events.EventPattern>>;
  /** Where they go, for the rules' descriptions. */
  readonly destination: string;
  /** The ops stack's name, which the dead-letter alarm's name starts with. */
  readonly deployment: string;
}

/**
 * Rules on this account's default bus that forward events to a bus of the ops account (in another account, another
 * Region or both, https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-cross-region.html), with the role
 * EventBridge sends them with (PutEvents on that bus only). An event EventBridge could not forward for a day of
 * retries is kept in a dead-letter queue here for 14 days, to be redriven; an alarm on its depth is forwarded the same
 * way, and pages in the ops account (ForwardingAlarmRoutes).
 */
export class EventForwarding extends Construct {
  readonly role: iam.Role;
  readonly deadLetterQueue: sqs.Queue;
  /** Pages the ops account, by way of its state changes forwarded with the events. */
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: EventForwardingProps) {
    super(scope, id);
    this.role = new iam.Role(this, 'Role', {
      description: `k8s-incident-sentinel: forwards ${props.destination}`,
      assumedBy: new iam.ServicePrincipal('events.amazonaws.com'),
    });
    const bus = events.EventBus.fromEventBusArn(this, 'OpsBus', props.busArn);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const reason =
      'This queue is the dead-letter queue of the forwarding rules; a dead-letter queue needs none of its own.';
    Validations.of(this.deadLetterQueue).acknowledge(
      { id: 'AwsSolutions-SQS3', reason },
      { id: 'Serverless-SQSRedrivePolicy', reason },
    );
    const deadLetters = forwardingDeadLetterAlarm(this, props.deployment, this.deadLetterQueue);
    this.deadLetterAlarm = deadLetters.alarm;
    const patterns = { ...props.patterns, DeadLetterAlarm: deadLetters.pattern };
    for (const [name, eventPattern] of Object.entries(patterns)) {
      new events.Rule(this, name, {
        description: `k8s-incident-sentinel: forwards ${props.destination}`,
        eventPattern,
        targets: [new targets.EventBus(bus, { role: this.role, deadLetterQueue: this.deadLetterQueue })],
      });
    }
  }
}
