import { displayNameOf } from '../config/cluster-identity.ts';
import type { DeploymentConfig } from '../config/deployment-config.ts';
import type { Incident } from '../engine/incident.ts';
import type { Notification } from '../engine/notification.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import type { Activity, PollRecord } from '../pipeline/ports.ts';
import { tripwireAlarmMetrics } from '../pipeline/tripwire-alarm.ts';
import { type CostModel, estimateCost } from './cost-model.ts';
import { DIGEST_FORMAT, type Digest, type DigestSource, type WeekFigures, type WeekSpan } from './digest.ts';
import { digestIncidents } from './digest-incidents.ts';
import { digestSilences } from './digest-silences.ts';
import { type DigestWeek, previousWeek } from './iso-week.ts';
import { latentRisks } from './latent-risk.ts';
import { nearMissReport } from './near-miss-report.ts';
import { pipelineHealth } from './pipeline-health.ts';
import { ruleNoise } from './rule-noise.ts';
import { formatCivil, localTime } from './zoned-time.ts';

/** Where the digest draws its lines; each is stated in the digest. */
export interface DigestThresholds {
  /** An incident resolved within this long of opening was likely a transient. */
  readonly shortLivedMs: number;
  /** A ticket open this long is a latent risk. */
  readonly latentRiskMs: number;
  /** A poll that started this long after its schedule is late. */
  readonly lateMs: number;
  /** A near miss this long before an incident opens is its onset. */
  readonly nearMissOnsetMs: number;
}

const DEFAULT_THRESHOLDS: DigestThresholds = {
  shortLivedMs: 10 * 60_000,
  latentRiskMs: 24 * 3_600_000,
  lateMs: 60_000,
  nearMissOnsetMs: 30 * 60_000,
};

export interface DigestInput {
  readonly activity: Activity;
  /** The week before, for comparison. */
  readonly previous: Activity;
  readonly week: DigestWeek;
  readonly ruleSet: RuleSet;
  readonly config?: Pick<DeploymentConfig, 'rules' | 'clusters' | 'digest' | 'notifications'> &
    Partial<Pick<DeploymentConfig, 'poll'>>;
  readonly costModel: CostModel;
  readonly source: DigestSource;
  /** The watched clusters, so that a quiet one still has its row; the configuration's by default. */
  readonly clusters?: readonly string[];
  readonly thresholds?: Partial<DigestThresholds>;
}

/** Every figure of one week's digest, from what the store recorded. Pure: rendering and sending come after. */
export function buildDigest(input: DigestInput): Digest {
  const { activity, previous, week, ruleSet, config } = input;
  const thresholds = { ...DEFAULT_THRESHOLDS, ...input.thresholds };
  const margin = config?.digest.nearMissMargin ?? 0.2;
  const incidents = digestIncidents(activity.incidents, activity.notifications, week, ruleSet);
  const own = activity.incidents.filter(isOwn);
  const sent = activity.notifications.map((n) => n.notification);
  const watched = input.clusters ?? config?.clusters.map(displayNameOf) ?? [];
  const names = [...new Set([...watched, ...clusterNames(activity), ...clusterNames(previous)])];
  const clusters = names
    .map((cluster) => ({
      cluster,
      thisWeek: figures(activity, cluster),
      previousWeek: figures(previous, cluster),
    }))
    .sort((a, b) => busyness(b.thisWeek) - busyness(a.thisWeek) || a.cluster.localeCompare(b.cluster));
  const total = figures(activity);
  const before = previousWeek(week);
  const incidentsBefore = digestIncidents(previous.incidents, [], before, ruleSet).length;
  return {
    format: DIGEST_FORMAT,
    source: input.source,
    week: weekSpan(week),
    previousWeek: before.label,
    headline: {
      pages: total.pages,
      tickets: total.tickets,
      incidents: incidents.length,
      openIncidents: incidents.filter((i) => i.status === 'open').length,
      quiet: total.pages === 0 && total.tickets === 0 && incidents.length === 0,
      previousWeekRecorded: previous.polls.length > 0,
    },
    total: {
      thisWeek: { ...total, incidents: incidents.length },
      previousWeek: { ...figures(previous), incidents: incidentsBefore },
    },
    clusters,
    incidents,
    noise: ruleNoise({
      incidents: own,
      notifications: activity.notifications,
      ruleSet,
      overrides: config?.rules.overrides ?? {},
      renotify: config?.notifications.renotify ?? '4h',
      shortLivedMs: thresholds.shortLivedMs,
    }),
    nearMisses: nearMissReport({
      polls: activity.polls,
      incidents: activity.incidents,
      ruleSet,
      margin,
      onsetMs: thresholds.nearMissOnsetMs,
    }),
    ...nearMissesNotRecorded(activity.polls),
    latentRisks: latentRisks({
      incidents,
      pages: sent.filter((n) => n.kind === 'page'),
      ruleSet,
      minOpenMs: thresholds.latentRiskMs,
      runbookBaseUrl: config?.notifications.runbookBaseUrl ?? '',
    }),
    silences: digestSilences(activity.silences ?? [], activity.incidents, week),
    pipeline: pipelineHealth({
      polls: activity.polls,
      notifications: activity.notifications,
      week,
      lateMs: thresholds.lateMs,
      wholeWeek: input.source.kind === 'deployment',
    }),
    cost: estimateCost(activity.polls, input.costModel, {
      alarmMetrics: config?.poll ? tripwireAlarmMetrics(config.clusters, config.poll.tripwire) : 0,
      periodMs: week.to - week.from,
    }),
    settings: {
      nearMissMargin: margin,
      shortLivedMinutes: thresholds.shortLivedMs / 60_000,
      latentRiskHours: thresholds.latentRiskMs / 3_600_000,
      lateAfterSeconds: thresholds.lateMs / 1000,
    },
  };
}

/** Not merged into another incident, whose story it became. */
function isOwn(incident: Incident): boolean {
  return incident.mergedInto === undefined;
}

function clusterNames(activity: Activity): string[] {
  return [
    ...activity.incidents.map((i) => i.cluster),
    ...activity.notifications.flatMap((n) => n.notification.clusters),
  ];
}

/** Pages and tickets that named the cluster (or all of them), and incidents on it. */
function figures(activity: Activity, cluster?: string): WeekFigures {
  const names = (n: Notification) => cluster === undefined || n.clusters.includes(cluster);
  const count = (kind: Notification['kind']) =>
    activity.notifications.filter(({ notification }) => notification.kind === kind && names(notification)).length;
  const on = (i: Incident) => isOwn(i) && (cluster === undefined || i.cluster === cluster);
  return { pages: count('page'), tickets: count('ticket'), incidents: activity.incidents.filter(on).length };
}

function busyness(week: WeekFigures): number {
  return week.pages * 1_000_000 + week.tickets * 1_000 + week.incidents;
}

function weekSpan(week: DigestWeek): WeekSpan {
  return {
    label: week.label,
    timeZone: week.timeZone,
    from: new Date(week.from).toISOString(),
    to: new Date(week.to).toISOString(),
    firstDay: formatCivil(localTime(week.from, week.timeZone)),
    lastDay: formatCivil(localTime(week.to - 1, week.timeZone)),
  };
}

/** How many near misses the week's poll records left out, when any was. */
function nearMissesNotRecorded(polls: readonly PollRecord[]): { nearMissesNotRecorded?: number } {
  const left = polls.reduce((sum, poll) => sum + (poll.nearMissesOmitted ?? 0), 0);
  return left > 0 ? { nearMissesNotRecorded: left } : {};
}
