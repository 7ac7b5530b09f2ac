/**
 * Fleets of cluster names as long as a display name may be (`DISPLAY_NAME_MAX`, 128 characters), to size what carries
 * them. Real fleets name their clusters by environment, team, Region and purpose, so names share long prefixes and
 * compress well; pseudo-random names share nothing and are the worst case for compression.
 */
import { SQS_SHARD_MESSAGE } from '../../aws/sqs/shard-message.ts';
import { DISPLAY_NAME_MAX } from '../../shared/config/cluster-identity.ts';
import { SHARD_SIZE, type ShardMessage, type ShardMessageFormat, shardMessages } from '../../shared/pipeline/shards.ts';
import { seededRandom } from '../../support/seeded-random.ts';

const ENVIRONMENTS = ['prod', 'staging', 'perf'];
const TEAMS = ['payments', 'checkout', 'search', 'identity', 'ledger', 'notifications', 'fraud', 'catalogue'];
const REGIONS = ['eu-west-1', 'us-east-1', 'ap-southeast-2', 'eu-central-1', 'us-west-2', 'sa-east-1'];
const PURPOSES = ['batch-workloads', 'online-services', 'stream-processing', 'ml-inference', 'ingress-edge'];

/** `prod-payments-eu-west-1-online-services-…-000017`: shared prefixes, a serial at the end, 128 characters. */
export function sharedPrefixNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const serial = String(i).padStart(6, '0');
    const prefix = [
      ENVIRONMENTS[i % ENVIRONMENTS.length],
      TEAMS[i % TEAMS.length],
      REGIONS[i % REGIONS.length],
      PURPOSES[i % PURPOSES.length],
      'eks-cluster-of-the',
      TEAMS[(i >> 3) % TEAMS.length],
      'platform-in-the-organisation-workload-account-for',
      ENVIRONMENTS[(i >> 4) % ENVIRONMENTS.length],
    ].join('-');
    return `${prefix.padEnd(DISPLAY_NAME_MAX, '-tenant').slice(0, DISPLAY_NAME_MAX - serial.length - 1)}-${serial}`;
  });
}

const FIRST = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const REST = `${FIRST}_.@/-`;

/** Names of 128 characters drawn from the display name's alphabet by a seeded generator: always the same. */
export function pseudoRandomNames(count: number): string[] {
  const next = seededRandom(1);
  const pick = (alphabet: string) => alphabet[Math.floor(next() * alphabet.length)];
  return Array.from({ length: count }, () =>
    [pick(FIRST), ...Array.from({ length: DISPLAY_NAME_MAX - 1 }, () => pick(REST))].join(''),
  );
}

/**
 * The shards of a fleet's worst minute (docs/scaling.md), dealt for SQS or for the queue `format` says: a twentieth
 * of the fleet due for a full read, every tripwire armed, and a maintenance window muting every cluster.
 */
export function worstMinuteShards(
  at: number,
  fleet: readonly string[],
  format: ShardMessageFormat = SQS_SHARD_MESSAGE,
): ShardMessage[] {
  const full = Math.ceil(fleet.length / 20);
  return shardMessages(
    at,
    { full: fleet.slice(0, full), minute: fleet.slice(full) },
    SHARD_SIZE,
    () => true,
    new Set(fleet),
    format,
  );
}
