import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

export interface SentinelKeyProps {
  /** Names of the SNS topics the key encrypts: CloudWatch and SNS may use the key on their behalf only. */
  readonly topicNames: readonly string[];
}

/**
 * The deployment's customer-managed key, with yearly rotation. It encrypts the table, the topics, the dead-letter
 * queues and the log groups. The default key policy lets IAM in this account grant it (the functions and the scheduler
 * role get key grants next to their other grants); the statements added here are for the services that use the key
 * without an IAM role of ours: CloudWatch Logs writing the log groups, CloudWatch alarms publishing to an encrypted
 * topic, and SNS and EventBridge moving what they could not deliver into an encrypted dead-letter queue.
 *
 * It is retained with the table: deleting the key would make the retained table unreadable.
 */
export class SentinelKey extends kms.Key {
  constructor(scope: Construct, id: string, props: SentinelKeyProps) {
    super(scope, id, {
      description: 'k8s-incident-sentinel: incidents table, notification topics, dead-letter queues and logs',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const stack = Stack.of(this);
    const { account, region, partition } = stack;

    this.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchLogsEncryptsThisAccountsLogGroups',
        principals: [new iam.ServicePrincipal(`logs.${region}.amazonaws.com`)],
        actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
        resources: ['*'],
        conditions: {
          ArnLike: { 'kms:EncryptionContext:aws:logs:arn': `arn:${partition}:logs:${region}:${account}:log-group:*` },
        },
      }),
    );
    // Without this, alarms deploy cleanly and then fail to publish to the encrypted paging topic: silence. The SNS
    // documentation gives this statement without conditions
    // (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html#compatibility-with-aws-services) and puts
    // aws:SourceAccount and aws:SourceArn on the topic policy, which has them (notification-topics.ts); the KMS request
    // SNS makes for CloudWatch is not documented to carry them, and a condition it lacks would drop every alarm.
    // `sentinel deploy-plan` ends with the smoke test that proves the path.
    this.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublishToEncryptedTopics',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.letServiceUseKey('SnsMovesUndeliverableNotificationsToEncryptedQueue', 'sns.amazonaws.com', {
      ArnEquals: {
        'aws:SourceArn': props.topicNames.map((name) =>
          stack.formatArn({ service: 'sns', resource: name, arnFormat: ArnFormat.NO_RESOURCE_NAME }),
        ),
      },
    });
    // Tripwire events EventBridge gives up on land in the encrypted tripwire dead-letter queue: without this they
    // would be dropped where no alarm sees them.
    this.letServiceUseKey('EventBridgeMovesUndeliveredEventsToEncryptedQueue', 'events.amazonaws.com', {
      ArnLike: {
        'aws:SourceArn': stack.formatArn({ service: 'events', resource: 'rule', resourceName: `${stack.stackName}-*` }),
      },
    });
  }

  /** Let an AWS service encrypt and decrypt with the key on behalf of the named sources of this account only. */
  private letServiceUseKey(sid: string, service: string, source: Record<string, Record<string, unknown>>): void {
    this.addToResourcePolicy(
      new iam.PolicyStatement({
        sid,
        principals: [new iam.ServicePrincipal(service)],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account }, ...source },
      }),
    );
  }
}
