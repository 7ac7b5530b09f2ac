import { Stack, Validations } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { nodeLookupRoleName } from '../aws/ec2/clients.ts';
import { FUNCTION_ACCESS } from './function-access.ts';
import { NodeEventRules } from './node-events.ts';
import type { SentinelFunctionProps } from './sentinel-function.ts';
import { TriggeredFunction } from './triggered-function.ts';

export interface NodeChurnProps extends SentinelFunctionProps {
  /** The workload accounts and Regions whose nodes it looks up and whose node events it takes. */
  readonly linkedAccounts: readonly { readonly account: string; readonly region: string }[];
}

/**
 * The node-churn function and the rules that hand it node events: this account's, from the default bus, and the
 * workload accounts', from the bus they forward to.
 */
export class NodeChurn extends TriggeredFunction {
  readonly events: NodeEventRules;

  constructor(scope: Construct, id: string, props: NodeChurnProps) {
    super(scope, id, props);
    this.function.addEnvironment('SENTINEL_OPS_ACCOUNT', Stack.of(this).account);
    this.bindInstanceLookups(props.linkedAccounts);
    this.events = new NodeEventRules(this, 'Events', {
      target: this.function.function,
      deadLetterQueue: props.deadLetterQueue,
      accounts: [...new Set(props.linkedAccounts.map((l) => l.account))].sort(),
    });
    // The bus has a fixed name: under a new logical id CloudFormation would create it again before deleting the old
    // one, and fail on the name. It keeps the id it had before it moved in here.
    this.events.linkedBus?.overrideLogicalId('NodeEventsLinkedAccountsBusB561F4E3');
  }

  /** The bus the workload accounts forward to, when there are any. */
  get linkedEventBus(): events.IEventBus | undefined {
    return this.events.linkedEventBus;
  }

  /**
   * The node-churn function looks up a node's tags with DescribeInstances: in this account directly, in a workload
   * account through the node-lookup role its SourceAccountStack creates.
   */
  private bindInstanceLookups(linked: NodeChurnProps['linkedAccounts']): void {
    const fn = this.function;
    const describe = FUNCTION_ACCESS.nodeChurn.instances.filter((action) => action.startsWith('ec2:'));
    const assume = FUNCTION_ACCESS.nodeChurn.instances.filter((action) => action.startsWith('sts:'));
    const policy = new iam.Policy(fn, 'LookUpInstances', {
      statements: [new iam.PolicyStatement({ actions: describe, resources: ['*'] })],
    });
    fn.role.attachInlinePolicy(policy);
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ec2:DescribeInstances does not support resource-level permissions: AWS requires Resource "*". The policy allows this one read-only action.',
    });
    if (linked.length === 0) return;
    const { partition } = Stack.of(this);
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: assume,
        resources: linked.map((l) => `arn:${partition}:iam::${l.account}:role/${nodeLookupRoleName(l.region)}`),
      }),
    );
  }
}
