import type { Notification } from '../engine/notification.ts';
import { isoSeconds } from '../time.ts';

/** The rule a notification about the pipeline's own alarms names: no configured rule has it. */
export const PIPELINE_ALARM_RULE = 'sentinel-pipeline';

/** What a paging tool shows where a page names its cluster: a pipeline alarm is about every cluster it watches. */
export const PIPELINE_SOURCE = '(pipeline)';

interface PipelineAlarmText {
  /** What the alarm in ALARM means for on-call, in a sentence. */
  readonly means: string;
  readonly whatToDo: readonly string[];
  /** The early warnings page as warnings: polls still succeed. */
  readonly severity: Notification['severity'];
}

/**
 * What each of the pipeline's alarms (infra/self-monitoring.ts, named `<stack>-<id>`) means and what to do about it,
 * as docs/deploy.md (Alarms) and docs/resilience.md say; an alarm this table does not know pages with its own
 * description.
 */
export const PIPELINE_ALARMS: Readonly<Record<string, PipelineAlarmText>> = {
  ForwardingDeadLetters: {
    means:
      'Events this account and Region could not forward to the ops account (node churn, tripwire state changes) wait in its forwarding dead-letter queue: its clusters page late or not at all.',
    whatToDo: [
      "In the account and Region the title names, read a message from the forwarding stack's `DeadLetters` queue: its attributes ERROR_CODE, ERROR_MESSAGE and RULE_ARN say why EventBridge gave up.",
      'The usual causes: the OpsStack redeployed without this account among its linked accounts, the OpsStack torn down, or the forwarding role changed by hand.',
      'Redrive the messages to the ops bus or purge them (docs/operating.md, "Forwarding dead letters"); until then these clusters are read on the slow cadence only.',
    ],
    severity: 'critical',
  },
  PollerHeartbeat: {
    means: 'The poller was not invoked in any of the last 5 minutes: nothing is watching the clusters.',
    whatToDo: [
      'Check that the poll schedule (EventBridge Scheduler) is enabled and invokes the poller every minute, and that its runs are not throttled (the function’s Throttles, its reserved concurrency).',
      'Until it is back, watch the clusters by hand: no page will come for them.',
    ],
    severity: 'critical',
  },
  IdlePolls: {
    means:
      'Polls ran but did not do their job in each of the last 5 minutes: their step was taken by a later poll, or they read only gaps. Nothing is watching the clusters.',
    whatToDo: [
      "Open the poller's log group: `stale` steps (a clock problem, or polls slower than a minute) or only gaps read (CloudWatch, the OAM links, `sentinel doctor`) say why.",
      'Until it is back, watch the clusters by hand: no page will come for them.',
    ],
    severity: 'critical',
  },
  PollerErrors: {
    means: 'The poller failed in 3 of the last 5 minutes.',
    whatToDo: [
      "Read the errors in the poller's log group.",
      'A lasting failure means no poll gets to the end: nothing is watching the clusters, and no heartbeat alarm will follow (it counts failed invocations as invocations). Watch the clusters by hand until polls succeed again.',
    ],
    severity: 'critical',
  },
  PollerThrottles: {
    means: 'Poller runs were throttled in 3 of the last 5 minutes: polls got slow and overlap (an early warning).',
    whatToDo: [
      'Look at PollDurationMs and the poller log for slow CloudWatch or DynamoDB calls.',
      'A fleet that outgrew one poller needs the shard workers (docs/scaling.md).',
    ],
    severity: 'warning',
  },
  PollerDuration: {
    means:
      'Polls take more than 80% of their timeout (an early warning): CloudWatch or DynamoDB are slow, or the fleet outgrew one poller.',
    whatToDo: [
      "Read the poller's log group for slow calls and throttling.",
      'A fleet that outgrew one poller needs the shard workers (docs/scaling.md).',
    ],
    severity: 'warning',
  },
  NotificationFailures: {
    means:
      'Publishing notifications to SNS failed in 3 of the last 5 minutes; they wait in the outbox and are retried every poll.',
    whatToDo: [
      'Read the poller log ("publish failed, kept for retry") for the SNS error: a topic policy, the key policy, or throttling.',
    ],
    severity: 'critical',
  },
  StepsQuarantined: {
    means: 'A step was quarantined: its pages and incident changes were not applied. Polling goes on.',
    whatToDo: [
      'The poller log ("step quarantined") names the step, and its STEP item the reason (docs/resilience.md).',
      'Check the clusters of that minute by hand: a page it held may not have gone out.',
    ],
    severity: 'critical',
  },
  UnreadableClusters: {
    means: 'CloudWatch could not be read for some clusters in each of the last 5 minutes: they are not being watched.',
    whatToDo: [
      'The poller log ("metrics unreadable") names the clusters and the error.',
      "Check the OAM links of their accounts and the poller role's permissions (`sentinel doctor`).",
    ],
    severity: 'critical',
  },
  DeadLetters: {
    means:
      'The dead-letter queue holds messages: something the pipeline gave up on, possibly a page that was never delivered.',
    whatToDo: [
      'Read the messages: each says where it comes from (docs/deploy.md, Alarms).',
      'Fix the cause, then redrive or purge the queue; the alarm resolves when it is empty.',
    ],
    severity: 'critical',
  },
};

/** A CloudWatch alarm's state change, as EventBridge reports it (`detail` of "CloudWatch Alarm State Change"). */
export interface AlarmStateChange {
  readonly alarmName: string;
  readonly account: string;
  readonly region: string;
  /** The alarm's own description (`detail.configuration.description`). */
  readonly description?: string;
  readonly state: AlarmState;
  readonly previousState?: AlarmState;
}

export interface AlarmState {
  readonly value: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
  readonly reason?: string;
  readonly timestamp: string;
}

export function isPipelineAlarm(notification: Pick<Notification, 'rule'>): boolean {
  return notification.rule === PIPELINE_ALARM_RULE;
}

/** The table's entry for an alarm named `<stack>-<id>`. */
function alarmText(alarmName: string): PipelineAlarmText | undefined {
  const id = Object.keys(PIPELINE_ALARMS).find((known) => alarmName.endsWith(`-${known}`));
  return id === undefined ? undefined : PIPELINE_ALARMS[id];
}

/** The CloudWatch console page of an alarm. */
export function alarmConsoleUrl(region: string, alarmName: string): string {
  return `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#alarmsV2:alarm/${encodeURIComponent(alarmName)}`;
}

/**
 * The page (on ALARM) or the resolve (on OK from ALARM) of one of the pipeline's alarms; undefined for any other
 * change (INSUFFICIENT_DATA, or OK from INSUFFICIENT_DATA when an alarm is created), which no paging tool needs.
 *
 * Its incident is the alarm's time in ALARM: the alarm's name and the moment it entered ALARM, which the ALARM change
 * carries as its state's timestamp and the OK change as its previous state's. So a page and its resolve share one
 * dedup key and alias, and the alarm's next time in ALARM is a new incident rather than an update of a resolved one.
 * Every id is built from the change itself, so a redelivered or duplicated event is the same notification.
 */
export function pipelineAlarmNotification(change: AlarmStateChange): Notification | undefined {
  const { alarmName, state, previousState } = change;
  const opened =
    state.value === 'ALARM'
      ? state.timestamp
      : state.value === 'OK' && previousState?.value === 'ALARM'
        ? previousState.timestamp
        : undefined;
  if (opened === undefined) return undefined;
  const kind = state.value === 'ALARM' ? 'page' : 'resolve';
  const at = isoSeconds(Date.parse(state.timestamp));
  const openedAt = isoSeconds(Date.parse(opened));
  const known = alarmText(alarmName);
  const means = known?.means ?? change.description ?? `The pipeline alarm ${alarmName} is in ALARM.`;
  const incident = `${PIPELINE_ALARM_RULE}/${alarmName}/${openedAt}`;
  const where = `${change.account} ${change.region}`;
  return {
    id: `${at}/${kind}/${PIPELINE_ALARM_RULE}/${alarmName}`,
    at,
    kind,
    reason: kind === 'page' ? 'opened' : 'resolved',
    severity: known?.severity ?? 'critical',
    rule: PIPELINE_ALARM_RULE,
    title:
      kind === 'page'
        ? `Pipeline alarm ${alarmName} (${where}): ${means}`
        : `Resolved: pipeline alarm ${alarmName} (${where}) is OK again`,
    summary: [means, state.reason && `CloudWatch: ${state.reason}`].filter(Boolean).join(' '),
    clusters: [PIPELINE_SOURCE],
    incidents: [incident],
    group: incident,
    openedAt,
    symptoms: [],
    changes: [],
    causalChain: [],
    evidence: [],
    hints: kind === 'page' ? (known?.whatToDo ?? []).map((text) => ({ text, source: 'docs/deploy.md#alarms' })) : [],
    runbook: 'docs/deploy.md#alarms',
    graph: alarmConsoleUrl(change.region, alarmName),
  };
}
