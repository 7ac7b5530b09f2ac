import { CfnCondition, CfnOutput, CfnParameter, Fn, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as oam from 'aws-cdk-lib/aws-oam';
import type { Construct } from 'constructs';
import { nodeLookupRoleName } from '../aws/ec2-clients.ts';
import { OPS_STACK } from '../shared/config/deployment-shape.ts';
import { SHARED_RESOURCE_TYPE } from './metrics-sink.ts';
import { NodeEventForwarding, nodeEventBusName } from './node-events.ts';
import { namespaceFilter } from './watched-namespaces.ts';

/**
 * The name PutMetricAlarm requires of the role in the account whose metrics a cross-account alarm watches ("the
 * sharing account must already have a sharing role named CloudWatch-CrossAccountSharingRole", API Reference:
 * PutMetricAlarm, https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html).
 */
export const SHARING_ROLE_NAME = 'CloudWatch-CrossAccountSharingRole';

/**
 * The service-linked role through which CloudWatch in the monitoring account assumes the sharing role
 * (AWSServiceRoleForCloudWatchCrossAccount, of the service cloudwatch-crossaccount.amazonaws.com; same reference).
 */
export const CROSS_ACCOUNT_SERVICE_ROLE =
  'aws-service-role/cloudwatch-crossaccount.amazonaws.com/AWSServiceRoleForCloudWatchCrossAccount';

/** What the sharing role may do: read metrics, nothing else (no dashboards, alarms, logs or other services). */
export const SHARING_ROLE_ACTIONS = [
  'cloudwatch:GetMetricData',
  'cloudwatch:GetMetricStatistics',
  'cloudwatch:ListMetrics',
];

export interface SourceAccountStackProps extends StackProps {
  /** The namespaces to share: those the poller reads. */
  readonly namespaces: readonly string[];
  /** The ops account, when the configuration names it: the SinkArn parameter must then be one of its sinks. */
  readonly opsAccount?: string;
  /** A default for the SinkArn parameter: an existing sink from the configuration, or CDK context `sinkArn`. */
  readonly sinkArn?: string;
  /**
   * The ops account has tripwire alarms on metrics of this account's clusters: create the sharing role that
   * PutMetricAlarm's cross-account alarms need (unless the CreateSharingRole parameter says the account has one).
   */
  readonly crossAccountAlarms: boolean;
  /** The ops stack's Region, where node events are forwarded to; this stack's own Region when unset. */
  readonly opsRegion?: string;
}

/**
 * Deployed into each workload account, in the Region of its clusters: links the account to the ops account's OAM sink
 * of that Region and shares only the metric namespaces the poller reads. No logs, no traces, no other metrics. In the
 * ops stack's Region it also creates the sharing role that lets the tripwire alarms in the ops account read this
 * account's metrics.
 */
export class SourceAccountStack extends Stack {
  readonly link: oam.CfnLink;
  readonly sharingRole?: iam.Role;
  readonly nodeLookupRole: iam.Role;
  readonly nodeEvents: NodeEventForwarding;

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
    if (props.crossAccountAlarms) this.sharingRole = this.sharingRoleFor(sinkArn.valueAsString);
    // The ops account owns the sink: the fifth field of its ARN.
    const opsAccount = props.opsAccount ?? Fn.select(4, Fn.split(':', sinkArn.valueAsString));
    this.nodeEvents = new NodeEventForwarding(this, 'NodeEvents', {
      opsBusArn: `arn:${this.partition}:events:${props.opsRegion ?? this.region}:${opsAccount}:event-bus/${nodeEventBusName(OPS_STACK)}`,
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

  /**
   * CloudWatch-CrossAccountSharingRole, assumable only by the ops account's CloudWatch cross-account service-linked
   * role: the ops account is the one that owns the sink (the fifth field of its ARN). An account that already has the
   * role (from the CloudWatch console's cross-account sharing) deploys with CreateSharingRole=false, since role names
   * are unique in an account.
   */
  private sharingRoleFor(sinkArn: string): iam.Role {
    const create = new CfnParameter(this, 'CreateSharingRole', {
      type: 'String',
      allowedValues: ['true', 'false'],
      default: 'true',
      description: `Create ${SHARING_ROLE_NAME} for the ops account's tripwire alarms; false if this account already has one that trusts the ops account`,
    });
    const condition = new CfnCondition(this, 'CreatesSharingRole', {
      expression: Fn.conditionEquals(create.valueAsString, 'true'),
    });
    const opsAccount = Fn.select(4, Fn.split(':', sinkArn));
    const role = new iam.Role(this, 'SharingRole', {
      roleName: SHARING_ROLE_NAME,
      description:
        'k8s-incident-sentinel: lets the tripwire alarms of the ops account read the metrics of this account',
      assumedBy: new iam.AccountPrincipal(opsAccount).withConditions({
        ArnEquals: {
          'aws:PrincipalArn': `arn:${this.partition}:iam::${opsAccount}:role/${CROSS_ACCOUNT_SERVICE_ROLE}`,
        },
      }),
      inlinePolicies: {
        ReadMetrics: new iam.PolicyDocument({
          statements: [new iam.PolicyStatement({ actions: SHARING_ROLE_ACTIONS, resources: ['*'] })],
        }),
      },
    });
    (role.node.defaultChild as iam.CfnRole).cfnOptions.condition = condition;
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Reading CloudWatch metrics (GetMetricData, GetMetricStatistics, ListMetrics) does not support resource-level permissions: AWS requires Resource "*". The role reads metrics only, and only the ops account\'s CloudWatch service-linked role may assume it.',
    });
    return role;
  }
}
