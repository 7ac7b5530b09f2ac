import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  ClaimOutcome,
  DeliveryLedger,
  DeliveryOutcome,
  IncidentDeliveryState,
  KeyUsed,
} from '../../shared/delivery/deliver.ts';
import { isConditionFailure, unlessConditionFails } from './conditions.ts';
import { incidentDeliveryKey, notificationDeliveryKey } from './table-keys.ts';

/** What this module sends: conditional updates that claim and record, and consistent reads of an incident's state. */
export const IAM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

/**
 * Delivery records outlive anything that could still be redelivered: SQS keeps a message at most 14 days
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html), and a resolved
 * incident must stay closed for as long as a late trigger of it could turn up.
 */
const DELIVERY_TTL_SECONDS = 30 * 86_400;

/**
 * The delivery ledger in the incident table (`DELIVERY` items, laid out in table-keys.ts). A claim is a conditional
 * update that succeeds on a new record or on one whose lease ran out; a delivered record is never claimed again.
 */
export class DynamoDbDeliveryLedger implements DeliveryLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async claim(integration: string, notification: string, now: number, leaseMs: number): Promise<ClaimOutcome> {
    const key = notificationDeliveryKey(integration, notification);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: 'SET #status = :sending, leaseUntil = :until, expiresAt = :expires ADD attempts :one',
          ConditionExpression: 'attribute_not_exists(#status) OR (#status = :sending AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':sending': 'sending',
            ':until': now + leaseMs,
            ':now': now,
            ':one': 1,
            ':expires': expiry(now),
          },
        }),
      );
      return 'claimed';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return Item?.status === 'delivered' ? 'delivered' : 'busy';
  }

  async markDelivered(integration: string, notification: string, outcome: DeliveryOutcome, now: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: notificationDeliveryKey(integration, notification),
        UpdateExpression: 'SET #status = :delivered, outcome = :outcome, deliveredAt = :at REMOVE leaseUntil',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':delivered': 'delivered',
          ':outcome': outcome,
          ':at': new Date(now).toISOString(),
        },
      }),
    );
  }

  /**
   * What the delivery of a notification to an integration did, once it is done, or why its last attempt failed while
   * it is retried; for `sentinel test-page`.
   */
  async outcomeOf(
    integration: string,
    notification: string,
  ): Promise<{ outcome?: DeliveryOutcome; lastError?: string } | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: notificationDeliveryKey(integration, notification),
        ConsistentRead: true,
      }),
    );
    if (Item === undefined) return undefined;
    return {
      ...(Item.status === 'delivered' && { outcome: Item.outcome as DeliveryOutcome }),
      ...(typeof Item.lastError === 'string' && { lastError: Item.lastError }),
    };
  }

  async release(integration: string, notification: string, reason: string): Promise<void> {
    await unlessConditionFails(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: notificationDeliveryKey(integration, notification),
          UpdateExpression: 'SET leaseUntil = :zero, lastError = :reason',
          ConditionExpression: '#status = :sending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':zero': 0, ':sending': 'sending', ':reason': reason.slice(0, 1000) },
        }),
      ),
    );
  }

  async incident(integration: string, key: string): Promise<IncidentDeliveryState> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.table, Key: incidentDeliveryKey(integration, key), ConsistentRead: true }),
    );
    return {
      opened: Item?.openedAt !== undefined,
      closing: Item?.closingAt !== undefined,
      ...(typeof Item?.openedWith === 'string' && { openedWith: Item.openedWith }),
    };
  }

  async markOpened(integration: string, key: string, now: number, openedWith: KeyUsed): Promise<void> {
    await this.mark(integration, key, 'openedAt', now, openedWith);
  }

  async markClosing(integration: string, key: string, now: number): Promise<void> {
    await this.mark(integration, key, 'closingAt', now);
  }

  /** Sets the time once: the first open (with the key it went out with), the first resolve. */
  private async mark(
    integration: string,
    key: string,
    field: 'openedAt' | 'closingAt',
    now: number,
    openedWith?: string,
  ): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: incidentDeliveryKey(integration, key),
        UpdateExpression: `SET #field = if_not_exists(#field, :at), expiresAt = :expires${openedWith ? ', openedWith = if_not_exists(openedWith, :key)' : ''}`,
        ExpressionAttributeNames: { '#field': field },
        ExpressionAttributeValues: {
          ':at': new Date(now).toISOString(),
          ':expires': expiry(now),
          ...(openedWith && { ':key': openedWith }),
        },
      }),
    );
  }
}

const expiry = (now: number) => Math.floor(now / 1000) + DELIVERY_TTL_SECONDS;
