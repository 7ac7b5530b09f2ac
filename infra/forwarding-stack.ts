import { LegacyStackSynthesizer, Stack, type StackProps } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import { EventForwarding, NODE_EVENT_PATTERNS } from './node-events.ts';
import { tripwireStateChangePattern } from './tripwires.ts';

export interface ForwardingStackProps extends StackProps {
  /** The ops stack's name: the tripwire alarms' names start with it. */
  readonly deployment: string;
  /** The ops Region, whose default bus the events go to. */
  readonly opsRegion: string;
  /** Tripwire alarms are in this Region. */
  readonly tripwires: boolean;
  /** Clusters of the ops account are in this Region. */
  readonly opsAccountNodes: boolean;
}

/**
 * In the ops account, in a Region other than the ops Region: forwards what the functions of the ops Region must see
 * to that Region's default bus, where the OpsStack's rules hand it to them. The tripwire alarms' state changes, so
 * that a cluster here is read every minute as soon as its tripwire trips, and the node events of the ops account's
 * own clusters here, so that their node churn is counted. Small and without assets: it needs no `cdk bootstrap`.
 */
export class ForwardingStack extends Stack {
  readonly forwarding: EventForwarding;

  constructor(scope: Construct, id: string, props: ForwardingStackProps) {
    super(scope, id, { ...props, synthesizer: new LegacyStackSynthesizer() });
    const patterns: Record<string, events.EventPattern> = {
      ...(props.tripwires && { TripwireStateChanges: tripwireStateChangePattern(props.deployment) }),
      ...(props.opsAccountNodes && NODE_EVENT_PATTERNS),
    };
    this.forwarding = new EventForwarding(this, 'Forwarding', {
      busArn: `arn:${this.partition}:events:${props.opsRegion}:${this.account}:event-bus/default`,
      patterns,
      destination: `tripwire state changes and node events to the ops Region (${props.opsRegion})`,
      deployment: props.deployment,
    });
  }
}
