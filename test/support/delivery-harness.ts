import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Notification } from '../../shared/engine/notification.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE, writeConfig } from '../../support/aws-harness.ts';
import { type PagerDutyServer, startPagerDutyServer } from '../../support/pagerduty-server.ts';
import { type SecretsManagerServer, startSecretsManagerServer } from '../../support/secrets-manager-server.ts';
import { type SsmServer, startSsmServer } from '../../support/ssm-server.ts';
import { type OpsgenieServer, startOpsgenieServer } from './opsgenie-server.ts';

export type DeliveryHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export const SECRETS = {
  pagerduty: { name: 'sentinel/pagerduty', field: 'routingKey' },
  opsgenie: { name: 'sentinel/opsgenie' },
} as const;
export const KEYS = { pagerduty: 'R0UTINGKEY0000000000000000000001', opsgenie: 'genie-key-0001' } as const;
/** The PagerDuty routing key again, as a SecureString parameter of Parameter Store, for the tests that name it. */
export const PARAMETERS = { pagerduty: '/sentinel/pagerduty-routing-key' } as const;

/** The paging subscribers of the delivery tests: one PagerDuty service and one Opsgenie team, keys in secrets. */
export const VENDOR_SUBSCRIBERS = [
  {
    protocol: 'pagerduty',
    routingKeySecret: { secretName: SECRETS.pagerduty.name, jsonField: SECRETS.pagerduty.field },
  },
  { protocol: 'opsgenie', apiKeySecret: { secretName: SECRETS.opsgenie.name }, region: 'eu' },
];

/** Loopback AWS (dynalite, SNS, CloudWatch), Secrets Manager, Parameter Store, PagerDuty and Opsgenie, keys in place. */
export interface DeliveryHarness {
  readonly aws: AwsHarness;
  readonly pagerduty: PagerDutyServer;
  readonly opsgenie: OpsgenieServer;
  readonly secrets: SecretsManagerServer;
  readonly parameters: SsmServer;
  /** Back to empty vendors, table and fault plans, with the original keys (each parameter at its first version). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function startDeliveryHarness(): Promise<DeliveryHarness> {
  const aws = await startAwsHarness();
  const [pagerduty, opsgenie, secrets, parameters] = await Promise.all([
    startPagerDutyServer(),
    startOpsgenieServer(),
    startSecretsManagerServer(),
    startSsmServer(),
  ]);
  const keys = () => {
    secrets.putSecret(SECRETS.pagerduty.name, JSON.stringify({ [SECRETS.pagerduty.field]: KEYS.pagerduty }));
    secrets.putSecret(SECRETS.opsgenie.name, KEYS.opsgenie);
    parameters.deleteParameter(PARAMETERS.pagerduty);
    parameters.putParameter(PARAMETERS.pagerduty, KEYS.pagerduty);
    pagerduty.routingKeys.clear();
    pagerduty.routingKeys.add(KEYS.pagerduty);
    opsgenie.apiKeys.clear();
    opsgenie.apiKeys.add(KEYS.opsgenie);
  };
  keys();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ENDPOINT_URL_SSM: parameters.endpoint,
    SENTINEL_PAGERDUTY_ENDPOINT: pagerduty.endpoint,
    SENTINEL_OPSGENIE_ENDPOINT: opsgenie.endpoint,
  });
  return {
    aws,
    pagerduty,
    opsgenie,
    secrets,
    parameters,
    reset: async () => {
      for (const server of [pagerduty, opsgenie, secrets, parameters]) server.reset();
      keys();
      await clearTable(aws.dynamoEndpoint);
    },
    close: async () => {
      await Promise.all([aws.close(), pagerduty.close(), opsgenie.close(), secrets.close(), parameters.close()]);
    },
  };
}

/** Set the delivery function's environment and import its handler, as Lambda would at a cold start. */
export async function loadDelivery(
  clusters: readonly object[],
  paging: readonly object[] = [{ subscribers: VENDOR_SUBSCRIBERS }],
): Promise<DeliveryHandler> {
  Object.assign(process.env, {
    SENTINEL_CONFIG_FILE: writeConfig({ clusters, subscriptions: { paging } }),
    SENTINEL_TABLE: TABLE,
    SENTINEL_DEPLOYMENT: 'test',
  });
  const { handler } = await import('../../functions/delivery/handler.ts');
  return handler as unknown as DeliveryHandler;
}

let sequence = 0;

/**
 * The SQS record of a notification as the paging topic's raw-delivery subscription hands it over: the body is the
 * notification JSON (SNS's `sqs` body). The same notification always gets the same message id, as a redelivery does.
 */
export function sqsRecord(notification: Notification): SQSRecord {
  sequence += 1;
  return {
    messageId: `msg-${notification.id}`,
    receiptHandle: `receipt-${sequence}`,
    body: JSON.stringify(notification),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.parse(notification.at)),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:test-delivery',
    awsRegion: 'us-east-1',
  };
}

export function sqsEvent(notifications: readonly Notification[]): SQSEvent {
  return { Records: notifications.map(sqsRecord) };
}

export const LAMBDA_CONTEXT = {
  awsRequestId: 'delivery-test',
  functionName: 'delivery',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;
