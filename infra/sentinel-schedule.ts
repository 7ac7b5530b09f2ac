import type { Duration } from 'aws-cdk-lib';
import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SentinelFunction } from './sentinel-function.ts';

export interface SentinelScheduleProps {
  readonly description: string;
  readonly schedule: scheduler.ScheduleExpression;
  readonly target: SentinelFunction;
  /** The event the function receives; Scheduler substitutes `<aws.scheduler.*>` context attributes. */
  readonly input: Record<string, string>;
  /** Scheduler's own retries when it cannot hand the event to Lambda (not the function's errors: those are Lambda's). */
  readonly retryAttempts: number;
  readonly maxEventAge: Duration;
  readonly deadLetterQueue: sqs.IQueue;
  /** The key of the dead-letter queue, when it has one of the deployment's. */
  readonly key: kms.IKey | undefined;
}

/**
 * An EventBridge Scheduler schedule that invokes a SentinelFunction, with a retry policy, a dead-letter queue and a
 * role of its own that may invoke that function and write to that queue.
 */
export class SentinelSchedule extends Construct {
  readonly schedule: scheduler.Schedule;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: SentinelScheduleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.role = new iam.Role(this, 'Role', {
      description: `${props.description} (EventBridge Scheduler role)`,
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
    });
    // The dead-letter queue is encrypted: Scheduler writes to it with this role.
    props.key?.grant(this.role, 'kms:GenerateDataKey', 'kms:Decrypt');

    this.schedule = new scheduler.Schedule(this, 'Schedule', {
      description: props.description,
      schedule: props.schedule,
      timeWindow: scheduler.TimeWindow.off(),
      target: new targets.LambdaInvoke(props.target.function, {
        role: this.role,
        input: scheduler.ScheduleTargetInput.fromObject(props.input),
        retryAttempts: props.retryAttempts,
        maxEventAge: props.maxEventAge,
        deadLetterQueue: props.deadLetterQueue,
      }),
    });

    const functionLogicalId = stack.resolve((props.target.function.node.defaultChild as CfnFunction).logicalId);
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionLogicalId}.Arn>:*]`,
      reason:
        'Written by LambdaInvoke (grantInvoke): the wildcard covers the versions and aliases of this one function, which Scheduler may invoke; no other resource.',
    });
  }
}
