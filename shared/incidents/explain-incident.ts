import { describeCondition } from '../engine/condition.ts';
import type { Evidence } from '../engine/evaluate-condition.ts';
import type { HandResolution } from '../engine/hand-resolution.ts';
import type { Incident } from '../engine/incident.ts';
import type { Notification } from '../engine/notification.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import { describeEvidence } from '../engine/stages/evaluate.ts';
import type { NotificationRecord } from '../pipeline/ports.ts';
import { isoSeconds } from '../time.ts';
import type { FleetIncident } from './fleet-incidents.ts';

/** Where a notification went: the SNS topic its severity chooses, and the paging integrations it is routed to. */
export interface NotificationRoute {
  readonly topic: 'paging' | 'notice';
  /** The PagerDuty and Opsgenie integrations it reaches (their ids); absent when not known (no configuration). */
  readonly integrations?: readonly string[];
}

export interface ExplainInput {
  readonly incident: FleetIncident;
  readonly ruleSet: RuleSet;
  readonly resolution?: HandResolution;
  readonly routeOf: (notification: Notification) => NotificationRoute;
}

/** One thing that happened to a fleet incident, for its timeline. */
export interface TimelineEvent {
  readonly at: string;
  readonly cluster?: string;
  readonly event: string;
}

/** What one stage of the pipeline decided about the fleet incident, in a sentence per decision. */
export interface StageDecision {
  readonly stage: 'evaluate' | 'correlate' | 'lifecycle' | 'group' | 'mute' | 'dedup';
  readonly decided: readonly string[];
}

/** `sentinel incidents show`: why a fleet incident paged, what each stage decided, and what was sent where. */
export interface IncidentExplanation {
  readonly id: string;
  readonly status: 'open' | 'resolved' | 'resolved-by-hand';
  readonly rule: {
    readonly id: string;
    readonly title: string;
    /** The condition, with its m-of-n, window or combination. */
    readonly condition: string;
    readonly holdDown: string;
  };
  readonly members: readonly Incident[];
  readonly resolution?: HandResolution;
  readonly stages: readonly StageDecision[];
  readonly timeline: readonly TimelineEvent[];
  readonly notifications: readonly (NotificationRecord & { readonly route: NotificationRoute })[];
}

export function explainIncident(input: ExplainInput): IncidentExplanation {
  const { incident, ruleSet } = input;
  const rule = ruleSet.get(incident.rule);
  const members = incident.members;
  const resolvedBy = members.find((m) => m.resolvedBy !== undefined)?.resolvedBy;
  const status = members.every((m) => m.status === 'resolved')
    ? 'resolved'
    : resolvedBy || input.resolution
      ? 'resolved-by-hand'
      : 'open';
  return {
    id: incident.id,
    status,
    rule: {
      id: incident.rule,
      title: rule?.title ?? `${incident.rule} (not in this rule set)`,
      condition: rule ? describeCondition(rule.when) : 'unknown: the rule is not in this rule set',
      holdDown: rule?.holdDown ?? 'unknown',
    },
    members,
    ...(input.resolution && { resolution: input.resolution }),
    stages: stageDecisions(input),
    timeline: timeline(incident, input.resolution),
    notifications: incident.notifications.map((record) => ({ ...record, route: input.routeOf(record.notification) })),
  };
}

function stageDecisions({ incident, ruleSet }: ExplainInput): StageDecision[] {
  const { members } = incident;
  const evidenceOf = (m: Incident, rule: string) => passed(m.evidence[rule] ?? []);
  return [
    {
      stage: 'evaluate',
      decided: members.map((m) => {
        const evidence = evidenceOf(m, m.rule);
        return `${m.cluster}: ${m.rule} met${evidence.length > 0 ? `: ${describeEvidence(evidence)}` : ''}`;
      }),
    },
    {
      stage: 'correlate',
      decided: members.map((m) =>
        m.symptoms.length === 0
          ? `${m.cluster}: ${m.rule} is the root cause, nothing attached`
          : `${m.cluster}: ${m.rule} is the root cause; attached as symptoms: ${m.symptoms
              .map((s) => ruleSet.chain(m.rule, s).join(' > '))
              .join('; ')}`,
      ),
    },
    {
      stage: 'lifecycle',
      decided: members.map((m) => {
        const parts = [`opened ${m.openedAt}`, `firing since ${m.firingSince ?? m.openedAt}`];
        if (m.flaps > 0) parts.push(`went clear and fired again ${m.flaps} time(s) within the hold-down`);
        if (m.clearSince) parts.push(`clear since ${m.clearSince}`);
        if (m.recoveredAt && !m.resolvedAt) parts.push(`recovered ${m.recoveredAt}, waiting for the other clusters`);
        if (m.resolvedAt) parts.push(`resolved ${m.resolvedAt}${m.mergedInto ? `, merged into ${m.mergedInto}` : ''}`);
        return `${m.cluster}: ${parts.join(', ')}`;
      }),
    },
    {
      stage: 'group',
      decided: [
        `one fleet incident, opened ${incident.openedAt}, on ${members.length} cluster(s): ${members.map((m) => m.cluster).join(', ')}`,
      ],
    },
    {
      stage: 'mute',
      decided: members.map((m) => {
        if (!m.mutedBy) return `${m.cluster}: no maintenance window or silence held it back`;
        const mute = m.mutedBy.silence === undefined ? 'maintenance' : `silence ${m.mutedBy.silence}`;
        const held = `held back by ${mute} "${m.mutedBy.reason}" (${m.mutedBy.author}) until ${m.mutedBy.until}`;
        return `${m.cluster}: ${held}${m.notifiedAt ? `, shown ${m.notifiedAt}` : ''}`;
      }),
    },
    {
      stage: 'dedup',
      decided:
        incident.notifications.length === 0
          ? ['nothing sent yet: waiting for group_wait, or muted']
          : incident.notifications.map(
              ({ notification: n }) =>
                `${n.at}: ${n.kind} (${n.reason}) about ${n.clusters.join(', ')}${n.changes.length > 0 ? `: ${n.changes.join('; ')}` : ''}`,
            ),
    },
  ];
}

function timeline(incident: FleetIncident, resolution: HandResolution | undefined): TimelineEvent[] {
  const events: TimelineEvent[] = [];
  for (const m of incident.members) {
    const at = (time: string | undefined, event: string) => {
      if (time !== undefined) events.push({ at: time, cluster: m.cluster, event });
    };
    at(m.openedAt, `${m.rule} fired: incident ${m.id} opened`);
    if (m.firingSince !== undefined && m.firingSince !== m.openedAt)
      at(m.firingSince, 'fired again within the hold-down');
    at(m.clearSince, 'rules clear: hold-down started');
    if (m.recoveredAt !== m.resolvedAt) at(m.recoveredAt, 'recovered, waiting for the other clusters');
    at(m.resolvedAt, m.mergedInto ? `merged into ${m.mergedInto}` : 'resolved');
  }
  for (const { notification: n, status, deliveredAt } of incident.notifications) {
    events.push({ at: n.at, event: `${n.kind} (${n.reason}) raised: ${n.title}` });
    for (const e of n.evidence) {
      events.push({ at: n.at, cluster: e.cluster, event: `  evidence ${e.rule}: ${describeEvidence(e.items)}` });
    }
    if (deliveredAt !== undefined) events.push({ at: isoSeconds(deliveredAt), event: `${n.kind} delivered` });
    else events.push({ at: n.at, event: `${n.kind} ${status}, not delivered yet` });
  }
  if (resolution) {
    events.push({
      at: resolution.at,
      event: `resolved by hand by ${resolution.author}: ${JSON.stringify(resolution.reason)}`,
    });
  }
  // Stable: what happened at one time stays in the order it was told.
  return events.sort((a, b) => a.at.localeCompare(b.at));
}

function passed(items: readonly Evidence[]): Evidence[] {
  return items.filter((e) => e.passed);
}

/** `sentinel incidents show` as text. */
export function renderExplanation(x: IncidentExplanation): string[] {
  const lines = [
    `${x.id}: ${x.status === 'resolved-by-hand' ? 'resolved by hand, rules still firing' : x.status}`,
    `rule ${x.rule.id}: ${x.rule.title}`,
    `  fires when ${x.rule.condition}; resolves after ${x.rule.holdDown} clear`,
  ];
  if (x.resolution) {
    lines.push(`resolved by hand ${x.resolution.at} by ${x.resolution.author}: ${JSON.stringify(x.resolution.reason)}`);
  }
  lines.push('', 'what each stage decided:');
  for (const { stage, decided } of x.stages) {
    lines.push(`  ${stage}:`, ...decided.map((d) => `    ${d}`));
  }
  lines.push('', 'timeline:');
  for (const e of x.timeline) lines.push(`  ${e.at}  ${e.cluster ? `${e.cluster}: ` : ''}${e.event}`);
  lines.push('', 'notifications:');
  if (x.notifications.length === 0) lines.push('  none');
  for (const n of x.notifications) {
    const where = `${n.route.topic} topic${n.route.integrations ? `, then ${n.route.integrations.join(', ') || 'no paging integration'}` : ''}`;
    const delivery =
      n.status === 'delivered'
        ? `delivered ${isoSeconds(n.deliveredAt ?? 0)}`
        : `${n.status} after ${n.attempts} attempt(s)${n.lastError ? `: ${n.lastError}` : ''}`;
    lines.push(`  ${n.notification.at}  ${n.notification.kind} (${n.notification.reason}) to ${where}: ${delivery}`);
    lines.push(`    ${n.notification.title}  [${n.notification.id}]`);
  }
  return lines;
}
