import { InputError, type InputProblem } from '../errors.ts';
import { jsonPath } from '../schema-errors.ts';
import { subscribedClusters } from './cluster-labels.ts';
import {
  type DeploymentConfig,
  describeSecretReference,
  isDeliveredSubscriber,
  isVendorSubscriber,
  parseSinkArn,
  type SecretReference,
  type Subscriber,
} from './deployment-config.ts';
import { isLinked, linkedRegions, opsPlacement } from './deployment-shape.ts';

/**
 * SNS rejects a filter policy whose values, multiplied across its keys, exceed 150
 * (https://docs.aws.amazon.com/sns/latest/dg/subscription-filter-policy-constraints.html); a cluster filter spends one
 * of them on the marker of a fleet page's cut cluster list (infra/cluster-filter.ts).
 */
export const MAX_FILTERED_CLUSTERS = 149;
/** An SMS subscriber of the paging topic filters on three kinds too (infra/cluster-filter.ts): 3 × (49 + 1) = 150. */
export const MAX_SMS_FILTERED_CLUSTERS = 49;

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

/**
 * The checks a deployment needs beyond the schema and its cross-references (which `loadConfig` makes): what SNS would
 * refuse, and who would hear nothing. The one verdict for a configuration: the CDK app and validate-config both ask it.
 */
export function configVerdict(config: DeploymentConfig): ConfigVerdict {
  return {
    errors: [...subscriptionErrors(config), ...recipientErrors(config), ...opsErrors(config)],
    warnings: [...audienceWarnings(config), ...sinkWarnings(config), ...nodeKindWarnings(config)],
  };
}

/** Throws an InputError naming the file when the configuration cannot be deployed; returns its warnings. */
export function checkDeployable(config: DeploymentConfig, file: string): readonly ConfigWarning[] {
  const { errors, warnings } = configVerdict(config);
  if (errors.length > 0) throw new InputError(file, errors);
  return warnings;
}

/** What makes two subscribers the same SNS subscription: protocol and endpoint (or the secret holding it). */
export function subscriberKey(subscriber: Subscriber): string {
  const secret = (reference: SecretReference) => `${describeSecretReference(reference)}#${reference.jsonField ?? ''}`;
  switch (subscriber.protocol) {
    case 'pagerduty':
      return `pagerduty ${secret(subscriber.routingKeySecret)}`;
    case 'opsgenie':
    case 'jsm':
      return `${subscriber.protocol} ${secret(subscriber.apiKeySecret)}`;
    case 'https':
      if (subscriber.endpointSecret) return `https ${secret(subscriber.endpointSecret)}`;
  }
  return `${subscriber.protocol} ${subscriber.endpoint}`;
}

function subscriptionErrors(config: DeploymentConfig): InputProblem[] {
  const problems: InputProblem[] = [];
  for (const role of ['paging', 'notice'] as const) {
    const seen = new Map<string, string>();
    config.subscriptions[role].forEach((subscription, index) => {
      const at = ['subscriptions', role, index];
      const sms = role === 'paging' && subscription.subscribers.some((s) => s.protocol === 'sms');
      const most = sms ? MAX_SMS_FILTERED_CLUSTERS : MAX_FILTERED_CLUSTERS;
      const filtered = subscribedClusters(subscription, config);
      if (filtered && filtered.length > most) {
        const beside = sms ? ' beside the SMS filter on kind' : '';
        problems.push({
          path: jsonPath([...at, subscription.labels ? 'labels' : 'clusters']),
          message: subscription.labels
            ? `an SNS filter policy can name at most ${most} clusters${beside}, and this subscription's "labels" select ${filtered.length}; split the subscription or narrow its labels`
            : `an SNS filter policy can name at most ${most} clusters${beside}; split the subscription or drop "clusters"`,
        });
      }
      subscription.subscribers.forEach((subscriber, position) => {
        const path = jsonPath([...at, 'subscribers', position]);
        if (role !== 'paging' && isVendorSubscriber(subscriber)) {
          problems.push({
            path: `${path}.protocol`,
            message: `a ${subscriber.protocol} subscriber belongs under subscriptions.paging: the delivery function reads the paging topic, and tickets do not page`,
          });
          return;
        }
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
  // The pipeline alarms reach the paging topic's subscribers without a cluster filter, and the PagerDuty, Opsgenie and
  // JSM integrations whatever their filter (infra/paging-delivery.ts), unless a subscription says `pipelineAlarms: false`.
  const alarmHearers = pipelineAlarmHearers(config);
  if (paging.length === 0) {
    warnings.push({
      code: 'sentinel:noPagingSubscriber',
      path: '$.subscriptions.paging',
      message: `no paging subscriber: pages and the pipeline alarms reach no one. ${ADD_UNFILTERED_PAGING}`,
    });
  } else if (alarmHearers.length === 0) {
    // The pipeline's own alarms (heartbeat, errors, dead letters) carry no cluster attribute, so a filter drops them.
    warnings.push({
      code: 'sentinel:selfMonitoringUnheard',
      path: '$.subscriptions.paging',
      message: `no one receives the pipeline alarms: every paging subscription is limited to some clusters (the alarms carry no cluster attribute) or says "pipelineAlarms": false, and none has a PagerDuty, Opsgenie or Jira Service Management subscriber that takes them. ${ADD_UNFILTERED_PAGING}`,
    });
  } else if (
    alarmHearers.every((subscriber) => subscriber.protocol === 'email') &&
    config.selfMonitoring.externalHeartbeat === undefined
  ) {
    // Email is read when someone looks; and an alarm in the Region it watches says nothing when the Region is down.
    warnings.push({
      code: 'sentinel:selfMonitoringEmailOnly',
      path: '$.subscriptions.paging',
      message:
        'only email hears the pipeline alarms (heartbeat, errors, dead letters), and nothing outside this account and Region hears it go dark. Add a PagerDuty, Opsgenie or Jira Service Management subscriber (they hear the alarms unless "pipelineAlarms": false), selfMonitoring.externalHeartbeat, a heartbeat that pages from outside AWS (docs/operating.md), or an SMS or https subscriber without "clusters".',
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

/** Clusters named in a kind warning; the rest are counted. */
const NAMED_UNKINDED = 3;

/**
 * A cluster whose configuration does not say how its nodes run gets the hints for every kind on its pages, each
 * labelled: a page several times longer than it needs to be, with commands for node groups it may not have. One
 * warning for the fleet, pointing at the first such cluster, since a fleet of thousands would otherwise print thousands.
 */
function nodeKindWarnings(config: DeploymentConfig): ConfigWarning[] {
  const unkinded = config.clusters.flatMap((cluster, index) =>
    cluster.source.profile === 'eks' && cluster.source.nodes === undefined ? [{ name: cluster.name, index }] : [],
  );
  const [first] = unkinded;
  if (first === undefined) return [];
  const named = unkinded.slice(0, NAMED_UNKINDED).map((c) => c.name);
  const more = unkinded.length > named.length ? ` and ${unkinded.length - named.length} more` : '';
  return [
    {
      code: 'sentinel:clusterKindUnknown',
      path: jsonPath(['clusters', first.index, 'source', 'nodes']),
      message: `${named.join(', ')}${more} do${unkinded.length === 1 ? 'es' : ''} not say how ${unkinded.length === 1 ? 'its' : 'their'} nodes run, so ${unkinded.length === 1 ? 'its' : 'their'} pages carry the hints for every kind of cluster. Set source.nodes (managed-node-groups, self-managed-groups, karpenter, auto-mode, fargate, or a list); sentinel doctor says what each cluster runs.`,
    },
  ];
}

/** Who hears the pipeline's own alarms: see `pipelineAlarms` in the configuration's schema. */
export function pipelineAlarmHearers(config: DeploymentConfig): Subscriber[] {
  return config.subscriptions.paging
    .filter((subscription) => subscription.pipelineAlarms)
    .flatMap((subscription) =>
      subscribedClusters(subscription, config) === undefined
        ? subscription.subscribers
        : subscription.subscribers.filter(isDeliveredSubscriber),
    );
}

/**
 * Clusters in other accounts need the ops account and Region named in the file: the workload accounts synthesize the
 * app with their own credentials, and the stacks they deploy must still link to the ops account's sink, in its Region.
 * An existing sink must be the ops account's (the poller reads through its own account's sink), one per Region.
 */
function opsErrors(config: DeploymentConfig): InputProblem[] {
  const problems: InputProblem[] = [];
  const linked = config.clusters.filter((cluster) => isLinked(cluster, { account: config.ops.accountId }));
  const missing = (['accountId', 'region'] as const).filter((field) => config.ops[field] === undefined);
  if (linked.length > 0 && missing.length > 0) {
    const example = linked[0];
    problems.push({
      path: '$.ops',
      message: `clusters in other accounts (${example?.name} in ${example?.accountId}${linked.length > 1 ? ', ...' : ''}) need the ops account and Region named: add "ops": { "accountId": "OPS_ACCOUNT_ID", "region": "REGION" }. The workload accounts run cdk with their own credentials, so the stacks cannot learn the ops account from them.`,
    });
  }
  const regions = new Map<string, string>();
  config.ops.existingSinks.forEach((arn, index) => {
    const path = jsonPath(['ops', 'existingSinks', index]);
    const sink = parseSinkArn(arn);
    if (!sink) return;
    if (config.ops.accountId !== undefined && sink.account !== config.ops.accountId) {
      problems.push({
        path,
        message: `this sink is in account ${sink.account}, not in the ops account ${config.ops.accountId}: the poller reads linked metrics through a sink of its own account`,
      });
    }
    const first = regions.get(sink.region);
    if (first !== undefined) {
      problems.push({
        path,
        message: `${first} already names the sink of ${sink.region}: an account has at most one sink per Region`,
      });
    } else regions.set(sink.region, path);
  });
  return problems;
}

function sinkWarnings(config: DeploymentConfig): ConfigWarning[] {
  const used = new Set(linkedRegions(config, opsPlacement(config)).map((linked) => linked.region));
  return config.ops.existingSinks.flatMap((arn, index) => {
    const sink = parseSinkArn(arn);
    if (!sink || used.has(sink.region)) return [];
    return [
      {
        code: 'sentinel:unusedSink',
        path: jsonPath(['ops', 'existingSinks', index]),
        message: `no cluster of another account is in ${sink.region}, so nothing links to this sink.`,
      },
    ];
  });
}
