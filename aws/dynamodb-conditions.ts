import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** A conditional write failed its condition: someone else got there first, or a newer write is already there. */
export function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException || (error as Error)?.name === 'ConditionalCheckFailedException'
  );
}

/** Run a conditional write whose failed condition means there is nothing to do (written already, or by a newer step). */
export async function unlessConditionFails(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
