import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/clients.ts';
import { CURSOR_KEY, PARTITION } from '../aws/dynamodb/table-keys.ts';

/**
 * Faults of a DynamoDB conversation, injected into the real document client: each factory returns what makes a
 * poll's client, so that one fault strikes one poll and the polls after it see a table that works.
 */
type Command = { input: { Item?: { pk?: string }; Key?: { sk?: string }; UpdateExpression?: string } };

/**
 * Document clients that die (throw) at the first outbox write any of them sends, as a Lambda killed in the middle of
 * applying a step, and work from then on, as the next invocation's do.
 */
export function dyingAtFirstOutboxWrite(): () => DynamoDBDocumentClient {
  let died = false;
  return () => {
    const client = documentClient();
    const send = client.send.bind(client);
    client.send = ((command: Command) => {
      if (!died && command.input.Item?.pk === PARTITION.outbox) {
        died = true;
        return Promise.reject(new Error('Task timed out after 50.00 seconds'));
      }
      return send(command as never);
    }) as typeof client.send;
    return client;
  };
}

/**
 * Document clients that lose the answer to the first claim of a step and to the first commit of a step's write-ahead
 * record any of them sends: the write lands, the SDK sends it again, and the caller sees the retry's answer (its
 * condition fails on what the first attempt wrote), as when a connection drops after DynamoDB applied the write.
 */
export function losingFirstClaimAndCommitAnswers(): () => DynamoDBDocumentClient {
  const lost = { claim: false, commit: false };
  return () => {
    const client = documentClient();
    const send = client.send.bind(client);
    client.send = (async (command: Command) => {
      const fault = isClaim(command) ? 'claim' : isCommit(command) ? 'commit' : undefined;
      if (fault === undefined || lost[fault]) return send(command as never);
      lost[fault] = true;
      await send(command as never);
      return send(command as never);
    }) as typeof client.send;
    return client;
  };
}

const isClaim = (command: Command) =>
  command.input.Key?.sk === CURSOR_KEY.sk && command.input.UpdateExpression?.includes('claimedStep') === true;
const isCommit = (command: Command) => command.input.Item?.pk === PARTITION.step && 'parts' in command.input.Item;
