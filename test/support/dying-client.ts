import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../aws/clients.ts';
import { PARTITION } from '../../aws/dynamodb/table-keys.ts';

/**
 * Document clients that die (throw) at the first outbox write any of them sends, as a Lambda killed in the middle of
 * applying a step, and work from then on, as the next invocation's do.
 */
export function dyingAtFirstOutboxWrite(): () => DynamoDBDocumentClient {
  let died = false;
  return () => {
    const client = documentClient();
    const send = client.send.bind(client);
    client.send = ((command: { input: { Item?: { pk?: string } } }) => {
      if (!died && command.input.Item?.pk === PARTITION.outbox) {
        died = true;
        return Promise.reject(new Error('Task timed out after 50.00 seconds'));
      }
      return send(command as never);
    }) as typeof client.send;
    return client;
  };
}
