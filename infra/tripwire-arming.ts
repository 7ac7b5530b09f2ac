import { Duration } from 'aws-cdk-lib';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import type { SentinelFunctionProps } from './sentinel-function.ts';
import { TriggeredFunction } from './triggered-function.ts';
import { TripwireStateChanges } from './tripwires.ts';

export interface TripwireArmingProps extends SentinelFunctionProps {
  /** The ops stack's name: the tripwire alarms' names start with it. */
  readonly deployment: string;
  /** Whether any cluster has a tripwire: without one, there is no state change to take. */
  readonly tripwires: boolean;
}

/**
 * The tripwire function and the rule that hands it the tripwire alarms' state changes. The alarms are in the
 * TripwireStacks of each Region; their state changes reach this Region's default bus, from the other Regions through
 * their ForwardingStack.
 */
export class TripwireArming extends TriggeredFunction {
  constructor(scope: Construct, id: string, props: TripwireArmingProps) {
    super(scope, id, props);
    if (!props.tripwires) return;
    new TripwireStateChanges(this, 'StateChanges', {
      deployment: props.deployment,
      description: 'k8s-incident-sentinel: tripwire alarm state changes arm and disarm minute-by-minute polling',
      target: new targets.LambdaFunction(this.function.function, {
        retryAttempts: 5,
        maxEventAge: Duration.minutes(10),
        deadLetterQueue: props.deadLetterQueue,
      }),
    });
  }
}
