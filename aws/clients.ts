import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * SDK clients with the retry policy the pipeline relies on: the standard mode's exponential backoff with jitter,
 * which retries throttling and 5xx. Endpoints follow the SDK's own AWS_ENDPOINT_URL_<SERVICE> variables, which is
 * how tests point the very same code at loopback servers.
 */
export const RETRY_ATTEMPTS = {
  cloudwatch: 6,
  sns: 3,
  sqs: 3,
  dynamodb: 5,
  secretsManager: 3,
  ssm: 3,
  ec2: 4,
  eks: 3,
} as const;

/** The SDK's own name for the middleware that logs every call; see `withoutCallLogging`. */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

export function cloudWatchClients(defaultRegion: string | undefined): (region: string) => CloudWatchClient {
  const clients = new Map<string, CloudWatchClient>();
  return (region) => {
    const key = region === 'default' ? (defaultRegion ?? 'default') : region;
    let client = clients.get(key);
    if (!client) {
      client = withoutCallLogging(
        new CloudWatchClient({
          ...(key !== 'default' && { region: key }),
          maxAttempts: RETRY_ATTEMPTS.cloudwatch,
          retryMode: 'standard',
        }),
      );
      clients.set(key, client);
    }
    return client;
  };
}

export function snsClient(): SNSClient {
  return withoutCallLogging(new SNSClient({ maxAttempts: RETRY_ATTEMPTS.sns, retryMode: 'standard' }));
}

export function sqsClient(): SQSClient {
  return withoutCallLogging(new SQSClient({ maxAttempts: RETRY_ATTEMPTS.sqs, retryMode: 'standard' }));
}

export function documentClient(): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    withoutCallLogging(new DynamoDBClient({ maxAttempts: RETRY_ATTEMPTS.dynamodb, retryMode: 'standard' })),
    {
      marshallOptions: { removeUndefinedValues: true },
    },
  );
}

/**
 * The SDK's logger middleware builds a copy of every answer with its sensitive fields masked, and only then hands it
 * to the client's logger, even the no-op logger these clients keep. For a GetMetricData page of hundreds of series
 * that walk costs about 40% of decoding the answer (profiled over the poller's wire test); nothing here logs SDK
 * calls, so the middleware goes.
 */
export function withoutCallLogging<Client extends { middlewareStack: { remove(name: string): boolean } }>(
  client: Client,
): Client {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}

export function secretsManagerClient(): SecretsManagerClient {
  return withoutCallLogging(
    new SecretsManagerClient({ maxAttempts: RETRY_ATTEMPTS.secretsManager, retryMode: 'standard' }),
  );
}

export function ssmClient(): SSMClient {
  return withoutCallLogging(new SSMClient({ maxAttempts: RETRY_ATTEMPTS.ssm, retryMode: 'standard' }));
}
