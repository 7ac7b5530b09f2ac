import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/clients.ts';
import { CURSOR_KEY, PARTITION } from '../aws/dynamodb/table-keys.ts';

/**
 * Faults of a DynamoDB conversation. A fault plan looks at each request (its input, items and keys as plain values)
 * and says which, if any, it strikes: the sender dies before the answer (`die`, a Lambda killed in the middle of
 * applying a step), or the answer is lost after DynamoDB applied the write (`lose-answer`, a dropped connection: the
 * SDK sends it again, and the caller sees the retry's answer). Each plan strikes once, so that the polls after it see
 * a table that works. The same plans strike in the document client (`faultyClients`) and on the wire
 * (support/dynamodb-fault-proxy.ts).
 */
export interface StoreRequest {
  readonly Item?: { readonly pk?: unknown };
  readonly Key?: { readonly sk?: unknown };
  readonly UpdateExpression?: string;
}
export type StoreFault = 'die' | 'lose-answer';
export type FaultPlan = (request: StoreRequest) => StoreFault | undefined;

/** Dies at the first outbox write: between a step's write-ahead record and the end of its application. */
export function dyingAtFirstOutboxWrite(): FaultPlan {
  let died = false;
  return (request) => {
    if (died || request.Item?.pk !== PARTITION.outbox) return undefined;
    died = true;
    return 'die';
  };
}

/** Loses the answer to the first claim of a step and to the first commit of a step's write-ahead record. */
export function losingFirstClaimAndCommitAnswers(): FaultPlan {
  const lost = { claim: false, commit: false };
  return (request) => {
    const fault = isClaim(request) ? 'claim' : isCommit(request) ? 'commit' : undefined;
    if (fault === undefined || lost[fault]) return undefined;
    lost[fault] = true;
    return 'lose-answer';
  };
}

const isClaim = (request: StoreRequest) =>
  request.Key?.sk === CURSOR_KEY.sk && request.UpdateExpression?.includes('claimedStep') === true;
/** The conditional put of a step's header, the commit: the parts written before it carry no owner. */
const isCommit = (request: StoreRequest) =>
  request.Item?.pk === PARTITION.step && typeof request.Item === 'object' && 'owner' in request.Item;

/**
 * Document clients that a fault plan strikes, one per poll: `die` throws where a killed Lambda would stop, and
 * `lose-answer` sends the request twice and answers with the second.
 */
export function faultyClients(plan: FaultPlan): () => DynamoDBDocumentClient {
  return () => {
    const client = documentClient();
    const send = client.send.bind(client);
    client.send = (async (command: { input: StoreRequest }) => {
      const fault = plan(command.input);
      if (fault === 'die') throw new Error('Task timed out after 50.00 seconds');
      if (fault === 'lose-answer') await send(command as never);
      return send(command as never);
    }) as typeof client.send;
    return client;
  };
}
