import { Duration } from 'aws-cdk-lib';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import type { SentinelFunctionProps } from './sentinel-function.ts';
import { SentinelSchedule } from './sentinel-schedule.ts';
import { TriggeredFunction } from './triggered-function.ts';

/** The poller and the schedule that runs it every minute. */
export class Poller extends TriggeredFunction {
  constructor(scope: Construct, id: string, props: SentinelFunctionProps) {
    super(scope, id, props);
    new SentinelSchedule(this, 'Schedule', {
      description: 'k8s-incident-sentinel: poll every minute',
      schedule: scheduler.ScheduleExpression.rate(Duration.minutes(1)),
      target: this.function,
      input: {
        kind: 'poll',
        scheduledTime: scheduler.ContextAttribute.scheduledTime,
        executionId: scheduler.ContextAttribute.executionId,
      },
      // A poll that could not be handed over within a minute is superseded by the next one.
      retryAttempts: 3,
      maxEventAge: Duration.minutes(1),
      deadLetterQueue: props.deadLetterQueue,
      key: props.key,
    });
  }
}
