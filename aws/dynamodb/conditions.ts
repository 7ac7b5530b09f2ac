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

/**
 * DynamoDB refused a write for what it is, not for when it came: ValidationException (an item over 400 KB, an
 * attribute it cannot hold) is a client error that no retry changes
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).
 */
export function isRefusedForGood(error: unknown): boolean {
  return (error as Error)?.name === 'ValidationException';
}
