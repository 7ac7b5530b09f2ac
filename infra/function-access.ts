import { IAM_ACTIONS as METRIC_SOURCE } from '../aws/cloudwatch-metric-source.ts';
import { IAM_ACTIONS as ACTIVITY_LOG } from '../aws/dynamodb-activity-log.ts';
import { IAM_ACTIONS as DELIVERY_LEDGER } from '../aws/dynamodb-delivery-ledger.ts';
import { IAM_ACTIONS as INCIDENT_REPOSITORY } from '../aws/dynamodb-incident-repository.ts';
import { IAM_ACTIONS as OUTBOX } from '../aws/dynamodb-outbox.ts';
import { IAM_ACTIONS as SHARD_FINDINGS } from '../aws/dynamodb-shard-findings.ts';
import { IAM_ACTIONS as STEP_LEDGER } from '../aws/dynamodb-step-ledger.ts';
import { IAM_ACTIONS as TABLE_QUERIES } from '../aws/dynamodb-table.ts';
import { IAM_ACTIONS as TRIPWIRE_RECORDER } from '../aws/dynamodb-tripwire-recorder.ts';
import { IAM_ACTIONS as TRIPWIRES } from '../aws/dynamodb-tripwires.ts';
import { IAM_ACTIONS as SECRET_VALUES } from '../aws/secret-values.ts';
import { IAM_ACTIONS as DIGEST_PUBLISHER } from '../aws/sns-digest-publisher.ts';
import { IAM_ACTIONS as NOTIFIER } from '../aws/sns-notifier.ts';
import { IAM_ACTIONS as SHARD_QUEUE } from '../aws/sqs-shard-queue.ts';

/**
 * What each function's code calls, as the union of the IAM_ACTIONS of the aws/ adapters its handler uses, split by
 * the resource they act on. The roles grant these and nothing else (besides writing their own logs and sending to
 * their failure queue); test/infra/least-privilege.test.ts walks each handler's imports and holds this to them, and
 * holds each adapter's IAM_ACTIONS to the SDK commands it sends.
 */
export interface FunctionAccess {
  /** DynamoDB actions on the incidents table. */
  readonly table: readonly string[];
  /** SNS actions on the function's topics. */
  readonly topics: readonly string[];
  /** CloudWatch actions, which take no resource. */
  readonly metrics: readonly string[];
  /** Secrets Manager actions on the secrets the configuration names. */
  readonly secrets: readonly string[];
  /** SQS actions on the shard queue (infra/shard-workers.ts), which exists only for a fleet larger than a shard. */
  readonly queues: readonly string[];
}

const union = (...lists: readonly (readonly string[])[]): string[] => [...new Set(lists.flat())].sort();

export const FUNCTION_ACCESS = {
  poller: {
    table: union(STEP_LEDGER, INCIDENT_REPOSITORY, OUTBOX, ACTIVITY_LOG, TRIPWIRES, SHARD_FINDINGS, TABLE_QUERIES),
    topics: union(NOTIFIER),
    metrics: union(METRIC_SOURCE),
    secrets: [],
    queues: union(SHARD_QUEUE),
  },
  digest: { table: union(TABLE_QUERIES), topics: union(DIGEST_PUBLISHER), metrics: [], secrets: [], queues: [] },
  tripwire: { table: union(TRIPWIRE_RECORDER), topics: [], metrics: [], secrets: [], queues: [] },
  delivery: { table: union(DELIVERY_LEDGER), topics: [], metrics: [], secrets: union(SECRET_VALUES), queues: [] },
  shardWorker: {
    table: union(SHARD_FINDINGS, TABLE_QUERIES),
    topics: [],
    metrics: union(METRIC_SOURCE),
    secrets: [],
    queues: [],
  },
} as const satisfies Record<string, FunctionAccess>;
