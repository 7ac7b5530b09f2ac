import type { Evidence } from '../engine/evaluate-condition.ts';
import type { NotificationKind } from '../engine/notification.ts';
import type { Severity } from '../engine/rule.ts';
import type { CostEstimate } from './cost-model.ts';

/** The JSON the digest topic's machine subscribers (SQS, Lambda) receive; bump the version on a breaking change. */
export const DIGEST_FORMAT = 'sentinel.digest/v1';

/** Where the figures come from: a deployed store, or a scenario replayed to preview the digest without AWS. */
export type DigestSource =
  | { readonly kind: 'deployment'; readonly name: string }
  | { readonly kind: 'replay'; readonly scenario: string; readonly file: string };

export interface WeekSpan {
  readonly label: string;
  readonly timeZone: string;
  readonly from: string;
  /** Excluded: the first instant of the next week. */
  readonly to: string;
  /** Monday and Sunday as the team's calendar shows them. */
  readonly firstDay: string;
  readonly lastDay: string;
}

export interface WeekFigures {
  /** Pages sent; in a total, a page naming several clusters counts once. */
  readonly pages: number;
  readonly tickets: number;
  /** Incidents opened in the week or still open during it. */
  readonly incidents: number;
}

export interface ClusterWeek {
  readonly cluster: string;
  readonly thisWeek: WeekFigures;
  readonly previousWeek: WeekFigures;
}

export interface Headline {
  readonly pages: number;
  readonly tickets: number;
  readonly incidents: number;
  /** Incidents still open when the week ended. */
  readonly openIncidents: number;
  /** No page, no ticket, no incident. */
  readonly quiet: boolean;
  /** Whether the store holds polls of the week before: without them its figures are not zeros but unknown. */
  readonly previousWeekRecorded: boolean;
}

/** One root cause opened at one step, on every cluster it hit at once (the engine pages those together). */
export interface DigestIncident {
  readonly id: string;
  readonly incidents: readonly string[];
  readonly rule: string;
  readonly title: string;
  readonly severity: Severity;
  /** As of the end of the week. */
  readonly status: 'open' | 'resolved';
  readonly clusters: readonly string[];
  readonly symptoms: readonly string[];
  readonly openedAt: string;
  readonly resolvedAt?: string;
  readonly openedBeforeWeek: boolean;
  /** Until it resolved, or until the end of the week while it stayed open. */
  readonly openForMs: number;
  readonly flaps: number;
  /** Notifications about it sent during the week. */
  readonly notifications: number;
}

export interface RuleNoise {
  readonly rule: string;
  readonly title: string;
  /** Incidents it took part in, as root cause or as symptom, one per cluster. */
  readonly fired: number;
  readonly asRoot: number;
  readonly flaps: number;
  /** Reminders sent because its incidents stayed open past the re-notify interval. */
  readonly reminders: number;
  readonly shortLived: number;
  /** What to change, most useful first; empty when the rule needs no tuning. */
  readonly advice: readonly string[];
}

export interface NearMissReport {
  readonly rule: string;
  readonly cluster: string;
  /** Polls at which it came within the margin. */
  readonly polls: number;
  readonly closestDistance: number;
  readonly closest: Evidence;
  readonly lastAt: string;
}

/** A ticket that stayed open long: the slow warning that came before outages such as OPA's. */
export interface LatentRisk {
  readonly incident: string;
  readonly rule: string;
  readonly title: string;
  readonly clusters: readonly string[];
  readonly openedAt: string;
  readonly openForMs: number;
  readonly stillOpen: boolean;
  /** Page rules that explain this one: what it can turn into. */
  readonly precursorOf: readonly string[];
  /** Of those, the ones that paged on the same clusters this week. */
  readonly pagedThisWeek: readonly string[];
  readonly fix: string;
  readonly runbook: string;
}

/** A silence that held during the week (`sentinel silence add`), and what it held back. */
export interface DigestSilence {
  readonly id: string;
  /** Unset: every cluster (never from the command line, which asks for one). */
  readonly cluster?: string;
  /** Unset: every rule. */
  readonly rule?: string;
  /** A silence's matchers, as `sentinel silence add --match` wrote them; absent on one stored before matchers. */
  readonly matchers?: readonly string[];
  /** Set when it held back pages too (`--include-pages`). */
  readonly includePages?: true;
  readonly from: string;
  readonly to: string;
  /** Who added it, as STS named the caller. */
  readonly author: string;
  readonly reason: string;
  /** When it was ended early, and by whom. */
  readonly expired?: { readonly at: string; readonly by: string };
  /** The incidents it held back; `shownAt` when on-call was shown one later (the silence ended, or it turned severe). */
  readonly heldBack: readonly {
    readonly incident: string;
    readonly cluster: string;
    readonly rule: string;
    readonly severity: Severity;
    readonly shownAt?: string;
  }[];
}

export interface RetriedNotification {
  readonly id: string;
  readonly at: string;
  readonly kind: NotificationKind;
  readonly title: string;
  readonly attempts: number;
  readonly delivered: boolean;
  readonly lastError?: string;
}

export interface PipelineHealth {
  readonly polls: number;
  /** One poll a minute over the week (DST weeks have an hour more or less). */
  readonly expectedPolls: number;
  /** Why the week's figures cannot be trusted to mean "all was well", when they cannot. */
  readonly degraded?: string;
  /** Polls that evaluated their step; the rest found it done or held by another invocation. */
  readonly evaluated: number;
  readonly failed: number;
  /**
   * Polls that ran out of time saving a step's incidents and left the rest to the next poll (`unfinishedStep` in
   * their records): a fleet outage's writes at DynamoDB's partition line. Absent when none.
   */
  readonly outOfTime?: number;
  readonly late: number;
  readonly maxLateMs: number;
  readonly firstPollAt?: string;
  readonly lastPollAt?: string;
  /** The longest time between two polls, when it is longer than the schedule's minute. */
  readonly longestGap?: { readonly from: string; readonly to: string; readonly ms: number };
  /** Clusters read, summed over the polls: quiet clusters are read on the slow cadence, not every minute. */
  readonly clusterReads: number;
  readonly metricsRequested: number;
  /** Cluster reads that failed, summed over the polls. */
  readonly unreadableClusters: number;
  readonly notificationsSent: number;
  readonly notificationsPending: number;
  readonly retried: readonly RetriedNotification[];
}

export interface DigestSettings {
  readonly nearMissMargin: number;
  readonly shortLivedMinutes: number;
  readonly latentRiskHours: number;
  readonly lateAfterSeconds: number;
}

/** The lists a digest may shorten to fit one SNS message. */
export type DigestList = 'clusters' | 'incidents' | 'noise' | 'nearMisses' | 'latentRisks' | 'retried';

export interface Digest {
  readonly format: typeof DIGEST_FORMAT;
  readonly source: DigestSource;
  readonly week: WeekSpan;
  readonly previousWeek: string;
  readonly headline: Headline;
  readonly total: { readonly thisWeek: WeekFigures; readonly previousWeek: WeekFigures };
  /** Busy clusters first. */
  readonly clusters: readonly ClusterWeek[];
  /** Open incidents first. */
  readonly incidents: readonly DigestIncident[];
  /** Rules that most need tuning first. */
  readonly noise: readonly RuleNoise[];
  readonly nearMisses: readonly NearMissReport[];
  /**
   * Near misses the week's poll records left out (each keeps the POLL_RECORD_LIST_MAX closest to firing,
   * shared/pipeline/poll-record.ts): not in `nearMisses`, which only knows what was recorded. Absent when none was.
   */
  readonly nearMissesNotRecorded?: number;
  readonly latentRisks: readonly LatentRisk[];
  /** Silences that held during the week, earliest first. */
  readonly silences: readonly DigestSilence[];
  readonly pipeline: PipelineHealth;
  readonly cost: CostEstimate;
  readonly settings: DigestSettings;
  /** How many entries of each list were left out to fit one SNS message; absent when nothing was. */
  readonly omitted?: Partial<Record<DigestList, number>>;
}
