import { IAM_ACTIONS as METRIC_SOURCE } from '../aws/cloudwatch/metric-source.ts';
import { IAM_ACTIONS as TRIPWIRE_ALARMS } from '../aws/cloudwatch/tripwire-alarms.ts';
import { IAM_ACTIONS as ACTIVITY_LOG } from '../aws/dynamodb/activity-log.ts';
import { IAM_ACTIONS as DELIVERY_LEDGER } from '../aws/dynamodb/delivery-ledger.ts';
import { IAM_ACTIONS as GZIPPED_PARTS } from '../aws/dynamodb/gzipped-parts.ts';
import { IAM_ACTIONS as INCIDENT_REPOSITORY } from '../aws/dynamodb/incident-repository.ts';
import { IAM_ACTIONS as NODE_CHURN_LEDGER } from '../aws/dynamodb/node-churn-ledger.ts';
import { IAM_ACTIONS as OUTBOX } from '../aws/dynamodb/outbox.ts';
import { IAM_ACTIONS as SHARD_FINDINGS } from '../aws/dynamodb/shard-findings.ts';
import { IAM_ACTIONS as STEP_LEDGER } from '../aws/dynamodb/step-ledger.ts';
import { IAM_ACTIONS as TABLE_QUERIES } from '../aws/dynamodb/table.ts';
import { IAM_ACTIONS as TRIPWIRE_RECORDER } from '../aws/dynamodb/tripwire-recorder.ts';
import { IAM_ACTIONS as ASSUME_NODE_LOOKUP } from '../aws/ec2/clients.ts';
import { IAM_ACTIONS as INSTANCE_DIRECTORY } from '../aws/ec2/instance-directory.ts';
import { IAM_ACTIONS as DIGEST_PUBLISHER } from '../aws/sns/digest-publisher.ts';
import { IAM_ACTIONS as NOTIFIER } from '../aws/sns/notifier.ts';
import { IAM_ACTIONS as SHARD_QUEUE } from '../aws/sqs/shard-queue.ts';
import { IAM_ACTIONS as SECRETS_MANAGER_SECRETS } from '../aws/vendors/secrets-manager-secrets.ts';
import { IAM_ACTIONS as SECURE_STRING_PARAMETERS } from '../aws/vendors/secure-string-parameters.ts';

/**
 * What each function's code calls, as the union of the IAM_ACTIONS of the aws/ adapters its handler uses, split by
 * the resource they act on. The roles grant these and nothing else (besides writing their own logs and sending to
 * their dead-letter queue); test/infra/least-privilege.test.ts walks each handler's imports and holds this to them, and
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
  /** Parameter Store actions on the SecureString parameters the configuration names. */
  readonly parameters: readonly string[];
  /** EC2 reads, which take no resource, and the STS action that assumes the workload accounts' node-lookup roles. */
  readonly instances: readonly string[];
  /** SQS actions on the shard queue (infra/shard-workers.ts), which exists only for a fleet larger than a shard. */
  readonly queues: readonly string[];
}

const union = (...lists: readonly (readonly string[])[]): string[] => [...new Set(lists.flat())].sort();
/** Most functions read no secret or parameter, look up no instance and send to no queue of their own. */
const NO_OTHER_ACCESS = { secrets: [], parameters: [], instances: [], queues: [] } as const;

export const FUNCTION_ACCESS = {
  poller: {
    table: union(
      STEP_LEDGER,
      INCIDENT_REPOSITORY,
      OUTBOX,
      ACTIVITY_LOG,
      TRIPWIRE_RECORDER,
      SHARD_FINDINGS,
      GZIPPED_PARTS,
      TABLE_QUERIES,
    ),
    topics: union(NOTIFIER),
    metrics: union(METRIC_SOURCE, TRIPWIRE_ALARMS),
    // The external heartbeat's URL, when the configuration names one (infra/self-monitoring.ts grants it).
    secrets: union(SECRETS_MANAGER_SECRETS),
    parameters: union(SECURE_STRING_PARAMETERS),
    instances: [],
    queues: union(SHARD_QUEUE),
  },
  digest: { table: union(TABLE_QUERIES), topics: union(DIGEST_PUBLISHER), metrics: [], ...NO_OTHER_ACCESS },
  tripwire: { table: union(TRIPWIRE_RECORDER), topics: [], metrics: [], ...NO_OTHER_ACCESS },
  delivery: {
    table: union(DELIVERY_LEDGER),
    topics: [],
    metrics: [],
    ...NO_OTHER_ACCESS,
    secrets: union(SECRETS_MANAGER_SECRETS),
    parameters: union(SECURE_STRING_PARAMETERS),
  },
  nodeChurn: {
    table: union(NODE_CHURN_LEDGER),
    topics: [],
    metrics: [],
    ...NO_OTHER_ACCESS,
    instances: union(INSTANCE_DIRECTORY, ASSUME_NODE_LOOKUP),
  },
  // Node churn is read from the table as the poller reads it.
  shardWorker: {
    table: union(SHARD_FINDINGS, GZIPPED_PARTS, TABLE_QUERIES),
    topics: [],
    metrics: union(METRIC_SOURCE),
    ...NO_OTHER_ACCESS,
  },
} as const satisfies Record<string, FunctionAccess>;
