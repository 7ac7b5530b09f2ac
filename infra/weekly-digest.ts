import { Duration, TimeZone } from 'aws-cdk-lib';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from '../shared/config/deployment-config.ts';
import type { SentinelFunctionProps } from './sentinel-function.ts';
import { SentinelSchedule } from './sentinel-schedule.ts';
import { TriggeredFunction } from './triggered-function.ts';

export interface WeeklyDigestProps extends SentinelFunctionProps {
  /** When it runs: `digest.day`, `digest.time` and `digest.timeZone`. */
  readonly digest: DeploymentConfig['digest'];
}

/** The digest function and the weekly schedule that runs it. */
export class WeeklyDigest extends TriggeredFunction {
  constructor(scope: Construct, id: string, props: WeeklyDigestProps) {
    super(scope, id, props);
    const { day, time, timeZone } = props.digest;
    const [hour = 0, minute = 0] = time.split(':').map(Number);
    new SentinelSchedule(this, 'Schedule', {
      description: `k8s-incident-sentinel: weekly digest, ${day} ${time} ${timeZone}`,
      schedule: scheduler.ScheduleExpression.cron({
        minute: String(minute),
        hour: String(hour),
        weekDay: day,
        timeZone: TimeZone.of(timeZone),
      }),
      target: this.function,
      input: { kind: 'digest', scheduledTime: scheduler.ContextAttribute.scheduledTime },
      retryAttempts: 10,
      maxEventAge: Duration.hours(2),
      deadLetterQueue: props.deadLetterQueue,
      key: props.key,
    });
  }
}
