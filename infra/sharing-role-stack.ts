import {
  CfnCondition,
  CfnParameter,
  Fn,
  LegacyStackSynthesizer,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

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

export interface SharingRoleStackProps extends StackProps {
  /** The ops account, whose CloudWatch service-linked role alone may assume the role. */
  readonly opsAccount: string;
}

/**
 * Deployed once by each workload account whose metrics a tripwire alarm reads, in the ops Region:
 * CloudWatch-CrossAccountSharingRole, assumable only by the ops account's CloudWatch cross-account service-linked role.
 * IAM is global and role names are unique in an account, so the role cannot be in the per-Region SourceAccountStacks.
 * An account that already has the role (from the CloudWatch console's cross-account sharing) deploys with
 * CreateSharingRole=false. No assets and a small template: it needs no `cdk bootstrap` (LegacyStackSynthesizer asks
 * CloudFormation for no bootstrap role and no bootstrap version).
 */
export class SharingRoleStack extends Stack {
  readonly sharingRole: iam.Role;

  constructor(scope: Construct, id: string, props: SharingRoleStackProps) {
    super(scope, id, { ...props, synthesizer: new LegacyStackSynthesizer() });
    const create = new CfnParameter(this, 'CreateSharingRole', {
      type: 'String',
      allowedValues: ['true', 'false'],
      default: 'true',
      description: `Create ${SHARING_ROLE_NAME} for the ops account's tripwire alarms; false if this account already has one that trusts the ops account`,
    });
    const condition = new CfnCondition(this, 'CreatesSharingRole', {
      expression: Fn.conditionEquals(create.valueAsString, 'true'),
    });
    const opsAccount = props.opsAccount;
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
    this.sharingRole = role;
  }
}
