import { CfnOutput, CfnParameter, Fn, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as oam from 'aws-cdk-lib/aws-oam';
import type { Construct } from 'constructs';
import { nodeLookupRoleName } from '../aws/ec2/clients.ts';
import { OPS_STACK } from '../shared/config/deployment-shape.ts';
import { SHARED_RESOURCE_TYPE } from './metrics-sink.ts';
import { EventForwarding, NODE_EVENT_PATTERNS, nodeEventBusName } from './node-events.ts';
import { namespaceFilter } from './watched-namespaces.ts';

export interface SourceAccountStackProps extends StackProps {
  /** The namespaces to share: those the poller reads. */
  readonly namespaces: readonly string[];
  /** The ops account, when the configuration names it: the SinkArn parameter must then be one of its sinks. */
  readonly opsAccount?: string;
  /** A default for the SinkArn parameter: an existing sink from the configuration, or CDK context `sinkArn`. */
  readonly sinkArn?: string;
  /** The ops stack's Region, where node events are forwarded to; this stack's own Region when unset. */
  readonly opsRegion?: string;
}

/**
 * Deployed into each workload account, in the Region of its clusters: links the account to the ops account's OAM sink
 * of that Region and shares only the metric namespaces the poller reads. No logs, no traces, no other metrics. It
 * forwards the account's node events to the ops account and lets the ops account look its nodes up. The sharing role
 * the tripwire alarms need is global, so it has a stack of its own (SharingRoleStack).
 */
export class SourceAccountStack extends Stack {
  readonly link: oam.CfnLink;
  readonly nodeLookupRole: iam.Role;
  readonly nodeEvents: EventForwarding;

  constructor(scope: Construct, id: string, props: SourceAccountStackProps) {
    super(scope, id, props);
    const region = props.env?.region ?? '[a-z0-9-]+';
    const account = props.opsAccount ?? '\\d{12}';
    const sinkArn = new CfnParameter(this, 'SinkArn', {
      type: 'String',
      description: `The SinkArn output of the ops account's ${id.replace('SourceAccountStack', 'OpsStack')} (or MetricsSinkStack of this Region), or the ARN of its existing sink`,
      allowedPattern: `^arn:aws[a-z-]*:oam:${region}:${account}:sink/[A-Za-z0-9-]+$`,
      constraintDescription: `must be an OAM sink ARN of the ops account${props.env?.region ? ` in ${props.env.region}` : ''}, e.g. arn:aws:oam:eu-west-1:111122223333:sink/0123abcd-...`,
      ...(props.sinkArn && { default: props.sinkArn }),
    });
    this.link = new oam.CfnLink(this, 'MetricsLink', {
      sinkIdentifier: sinkArn.valueAsString,
      labelTemplate: '$AccountName',
      resourceTypes: [SHARED_RESOURCE_TYPE],
      linkConfiguration: { metricConfiguration: { filter: namespaceFilter(props.namespaces) } },
    });
    new CfnOutput(this, 'LinkArn', { value: this.link.attrArn });
    // The ops account owns the sink: the fifth field of its ARN.
    const opsAccount = props.opsAccount ?? Fn.select(4, Fn.split(':', sinkArn.valueAsString));
    this.nodeEvents = new EventForwarding(this, 'NodeEvents', {
      busArn: `arn:${this.partition}:events:${props.opsRegion ?? this.region}:${opsAccount}:event-bus/${nodeEventBusName(OPS_STACK)}`,
      patterns: NODE_EVENT_PATTERNS,
      destination: 'node events to the ops account, where node churn is counted',
      deployment: OPS_STACK,
    });
    this.nodeLookupRole = this.nodeLookupRoleFor(opsAccount);
  }

  /**
   * The role the ops account's node-churn function assumes to read a node's tags (DescribeInstances, nothing else),
   * trusted only by that function's role. Named after its Region: an account with clusters in several Regions deploys
   * one stack, and one role, per Region.
   */
  private nodeLookupRoleFor(opsAccount: string): iam.Role {
    const role = new iam.Role(this, 'NodeLookupRole', {
      roleName: nodeLookupRoleName(this.region),
      description:
        "k8s-incident-sentinel: lets the ops account place this account's nodes in their clusters by their tags",
      assumedBy: new iam.AccountPrincipal(opsAccount).withConditions({
        ArnLike: { 'aws:PrincipalArn': `arn:${this.partition}:iam::${opsAccount}:role/${OPS_STACK}-NodeChurn*` },
      }),
      inlinePolicies: {
        DescribeInstances: new iam.PolicyDocument({
          statements: [new iam.PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] })],
        }),
      },
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ec2:DescribeInstances does not support resource-level permissions: AWS requires Resource "*". The role reads instances only, and only the ops account\'s node-churn function may assume it.',
    });
    return role;
  }
}
