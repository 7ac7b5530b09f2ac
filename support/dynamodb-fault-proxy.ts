/**
 * A loopback proxy in front of DynamoDB (dynalite) that strikes a fault plan (support/store-faults.ts) on the wire, so
 * that a function's own SDK client, built by its handler, meets it: `die` calls `onDie` (which kills the process
 * that sent the request) and never answers; `lose-answer` lets DynamoDB apply the request and then drops the
 * connection before the answer, so the SDK's retry sends it again and the caller sees the retry's answer.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forward, readAll, reply } from './http-proxying.ts';
import type { FaultPlan, StoreRequest } from './store-faults.ts';

export interface DynamoDbFaultProxy {
  readonly endpoint: string;
  /** The faults struck so far, in order. */
  readonly struck: string[];
  close(): Promise<void>;
}

type AttributeValues = Record<string, { S?: string; N?: string }>;

/** The top-level attributes of an item or key, strings and numbers as plain values: what a plan reads of them. */
const plainValues = (attributes: AttributeValues) =>
  Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, value.S ?? value.N ?? value]));

/** The request as the plan reads it, as the document client's commands hold it. */
function storeRequest(raw: Buffer): StoreRequest {
  try {
    const input = JSON.parse(raw.toString('utf8')) as {
      Item?: AttributeValues;
      Key?: AttributeValues;
      UpdateExpression?: string;
    };
    return {
      ...(input.Item && { Item: plainValues(input.Item) }),
      ...(input.Key && { Key: plainValues(input.Key) }),
      ...(input.UpdateExpression !== undefined && { UpdateExpression: input.UpdateExpression }),
    };
  } catch {
    return {};
  }
}

export async function startDynamoDbFaultProxy(options: {
  readonly target: string;
  readonly plan: FaultPlan;
  readonly onDie: () => void;
}): Promise<DynamoDbFaultProxy> {
  const target = new URL(options.target);
  const struck: string[] = [];
  const server = createServer(async (incoming, answer) => {
    // A request cut off while its body was sent (its client's container killed mid-write) is dropped with its socket.
    const raw = await readAll(incoming).catch(() => undefined);
    if (raw === undefined) {
      incoming.socket.destroy();
      return;
    }
    const fault = options.plan(storeRequest(raw));
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? 'request';
    if (fault) struck.push(`${fault} at ${operation}`);
    if (fault === 'die') {
      options.onDie();
      incoming.socket.destroy();
      return;
    }
    // DynamoDB applies the request either way; a lost answer, like an unreachable DynamoDB, leaves only a dropped socket.
    const replied = await forward(target, incoming, raw).catch(() => undefined);
    if (!replied || fault === 'lose-answer') {
      answer.socket?.destroy();
      return;
    }
    reply(answer, replied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    struck,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
