import { InputError, type InputProblem } from '../errors.ts';
import { jsonPath } from '../schema-errors.ts';
import type { ClusterConfig, DeploymentConfig, Subscriber } from './deployment-config.ts';

/** SNS rejects a filter policy whose values, multiplied across its keys, exceed 150. */
export const MAX_FILTERED_CLUSTERS = 150;

/** Something that deploys but deserves a look; `code` is the id a CDK warning carries, to acknowledge it by. */
export interface ConfigWarning extends InputProblem {
  readonly code: string;
}

/** What `cdk synth` and `sentinel validate-config` both say about a configuration that passed its schema. */
export interface ConfigVerdict {
  /** Refused: synth stops, validate-config exits 2. */
  readonly errors: readonly InputProblem[];
  /** Synth prints them as CDK warnings; validate-config prints them, and fails on them with --strict. */
  readonly warnings: readonly ConfigWarning[];
}

export interface VerdictOptions {
  /** The region of the ops stack, when known: OAM links and tripwire alarms are regional. */
  readonly opsRegion?: string;
  /** The ops account, when known: its own clusters are read directly, not through the OAM sink. */
  readonly opsAccount?: string;
}

/**
 * The checks a deployment needs beyond the schema and its cross-references (which `loadConfig` makes): what SNS would
 * refuse, and who would hear nothing. The one verdict for a configuration: the CDK app and validate-config both ask it.
 */
export function configVerdict(config: DeploymentConfig, options: VerdictOptions = {}): ConfigVerdict {
  return {
    errors: [...subscriptionErrors(config), ...recipientErrors(config)],
    warnings: [...audienceWarnings(config), ...regionWarnings(config, options)],
  };
}

/** Throws an InputError naming the file when the configuration cannot be deployed; returns its warnings. */
export function checkDeployable(
  config: DeploymentConfig,
  file: string,
  options: VerdictOptions = {},
): readonly ConfigWarning[] {
  const { errors, warnings } = configVerdict(config, options);
  if (errors.length > 0) throw new InputError(file, errors);
  return warnings;
}

/** What makes two subscribers the same SNS subscription: protocol and endpoint (or the secret holding it). */
export function subscriberKey(subscriber: Subscriber): string {
  if (subscriber.protocol === 'https' && subscriber.endpointSecret) {
    const { secretName, jsonField } = subscriber.endpointSecret;
    return `https secret ${secretName}#${jsonField ?? ''}`;
  }
  return `${subscriber.protocol} ${subscriber.endpoint}`;
}

function subscriptionErrors(config: DeploymentConfig): InputProblem[] {
  const problems: InputProblem[] = [];
  for (const role of ['paging', 'notice'] as const) {
    const seen = new Map<string, string>();
    config.subscriptions[role].forEach((subscription, index) => {
      const at = ['subscriptions', role, index];
      if (subscription.clusters && new Set(subscription.clusters).size > MAX_FILTERED_CLUSTERS) {
        problems.push({
          path: jsonPath([...at, 'clusters']),
          message: `an SNS filter policy can name at most ${MAX_FILTERED_CLUSTERS} clusters; split the subscription or drop "clusters"`,
        });
      }
      subscription.subscribers.forEach((subscriber, position) => {
        const path = jsonPath([...at, 'subscribers', position]);
        const key = subscriberKey(subscriber);
        const first = seen.get(key);
        if (first === undefined) {
          seen.set(key, path);
          return;
        }
        problems.push({
          path,
          message: `this subscriber is already subscribed to the ${role} topic at ${first}; SNS allows one subscription per endpoint, so merge the two "clusters" lists`,
        });
      });
    });
  }
  return problems;
}

function recipientErrors(config: DeploymentConfig): InputProblem[] {
  const problems: InputProblem[] = [];
  const seen = new Map<string, string>();
  config.digest.recipients.forEach((email, index) => {
    const path = jsonPath(['digest', 'recipients', index]);
    const first = seen.get(email);
    if (first === undefined) seen.set(email, path);
    else problems.push({ path, message: `"${email}" is already a recipient at ${first}` });
  });
  return problems;
}

const ADD_UNFILTERED_PAGING = 'Add a paging subscription without "clusters".';

function audienceWarnings(config: DeploymentConfig): ConfigWarning[] {
  const { paging, notice } = config.subscriptions;
  const { recipients } = config.digest;
  if (paging.length === 0 && notice.length === 0 && recipients.length === 0) {
    return [
      {
        code: 'sentinel:noSubscribers',
        path: '$.subscriptions',
        message: `no subscribers and no digest recipients: no page, ticket or digest reaches anyone. ${ADD_UNFILTERED_PAGING}`,
      },
    ];
  }
  const warnings: ConfigWarning[] = [];
  if (paging.length === 0) {
    warnings.push({
      code: 'sentinel:noPagingSubscriber',
      path: '$.subscriptions.paging',
      message: `no paging subscriber: pages and the pipeline alarms reach no one. ${ADD_UNFILTERED_PAGING}`,
    });
  } else if (paging.every((subscription) => subscription.clusters !== undefined)) {
    // The pipeline's own alarms (heartbeat, errors, dead letters) carry no cluster attribute, so a filter drops them.
    warnings.push({
      code: 'sentinel:selfMonitoringUnheard',
      path: '$.subscriptions.paging',
      message: `every paging subscription is limited to some clusters, so no one receives the pipeline alarms (they carry no cluster attribute). ${ADD_UNFILTERED_PAGING}`,
    });
  }
  if (notice.length === 0) {
    warnings.push({
      code: 'sentinel:noNoticeSubscriber',
      path: '$.subscriptions.notice',
      message: 'no notice subscriber: tickets reach no one.',
    });
  }
  if (recipients.length === 0) {
    warnings.push({
      code: 'sentinel:noDigestRecipient',
      path: '$.digest.recipients',
      message: 'no digest recipient: the weekly digest is sent to no one.',
    });
  }
  return warnings;
}

/** Whether the cluster has the signal its tripwire alarm watches (infra/tripwires.ts). */
function hasTripwireSignal(cluster: ClusterConfig): boolean {
  return cluster.source.custom['apiserver.write.p99'] !== undefined || cluster.source.profile === 'eks';
}

function regionWarnings(config: DeploymentConfig, { opsRegion, opsAccount }: VerdictOptions): ConfigWarning[] {
  if (opsRegion === undefined) return [];
  return config.clusters.flatMap((cluster, index) => {
    if (!cluster.region || cluster.region === opsRegion) return [];
    const path = jsonPath(['clusters', index, 'region']);
    const warnings: ConfigWarning[] = [];
    if (hasTripwireSignal(cluster)) {
      warnings.push({
        code: 'sentinel:tripwireOutsideRegion',
        path,
        message: `cluster "${cluster.name}" is in ${cluster.region}, but alarms can only watch metrics of their own region (${opsRegion}): it has no tripwire and is read on the slow cadence only.`,
      });
    }
    if (cluster.accountId && cluster.accountId !== opsAccount) {
      warnings.push({
        code: 'sentinel:linkedClusterOutsideSinkRegion',
        path,
        message: `cluster "${cluster.name}" is in account ${cluster.accountId}, region ${cluster.region}, but the OAM sink is in ${opsRegion}: OAM links are regional, so its metrics cannot be read through this sink.`,
      });
    }
    return warnings;
  });
}
