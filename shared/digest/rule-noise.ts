import type { Comparator, Condition, SustainedCondition } from '../engine/condition.ts';
import { describeOperand } from '../engine/condition.ts';
import { durationMs } from '../engine/duration.ts';
import { type Incident, members } from '../engine/incident.ts';
import type { Rule, RuleOverrides } from '../engine/rule.ts';
import type { ClusterRule, RuleSet } from '../engine/rule-set.ts';
import { formatNumber } from '../notify/notification-text.ts';
import type { NotificationRecord } from '../pipeline/ports.ts';
import { durationText, formatMinutes } from '../time.ts';
import type { RuleNoise } from './digest.ts';

export interface NoiseInput {
  /** The week's incidents, one per cluster. */
  readonly incidents: readonly Incident[];
  readonly notifications: readonly NotificationRecord[];
  readonly ruleSet: RuleSet;
  /** Fleet-wide overrides: the values the advice starts from. */
  readonly overrides: RuleOverrides;
  readonly renotify: string;
  readonly shortLivedMs: number;
}

/** A threshold parameter whose change makes the rule fire less: raised on `>`, lowered on `<`. */
interface Tunable {
  readonly param: string;
  readonly op: Comparator;
}

/** Raising or lowering a threshold by half again is a step big enough to matter and small enough to replay. */
const THRESHOLD_STEP = 1.5;

/**
 * How noisy each rule that fired was, noisiest first: flaps (cleared and fired again within the hold-down),
 * reminders (stayed open past the re-notify interval) and incidents that resolved within minutes, each with what to
 * change in the configuration.
 */
export function ruleNoise(input: NoiseInput): RuleNoise[] {
  const fired = new Set(input.incidents.flatMap((incident) => members(incident)));
  const effective = new Map(input.ruleSet.forCluster([input.overrides]).map((r) => [r.rule.id, r]));
  return [...fired]
    .flatMap((id) => {
      const rule = input.ruleSet.get(id);
      return rule ? [noiseOf(rule, effective.get(id), input)] : [];
    })
    .sort((a, b) => score(b) - score(a) || b.fired - a.fired || a.rule.localeCompare(b.rule));
}

function score(noise: RuleNoise): number {
  return noise.flaps + noise.reminders + noise.shortLived;
}

function noiseOf(rule: Rule, effective: ClusterRule | undefined, input: NoiseInput): RuleNoise {
  const rooted = input.incidents.filter((i) => i.rule === rule.id);
  const shortLived = rooted.filter(
    (i) => i.resolvedAt !== undefined && Date.parse(i.resolvedAt) - Date.parse(i.openedAt) <= input.shortLivedMs,
  );
  const flaps = rooted.reduce((sum, i) => sum + i.flaps, 0);
  const reminders = input.notifications.filter(
    (n) => n.notification.reason === 'reminder' && n.notification.rule === rule.id,
  ).length;
  const holdDownMs = effective?.holdDownMs ?? durationMs(rule.holdDown);
  const params = effective?.params ?? Object.fromEntries(Object.entries(rule.params).map(([k, p]) => [k, p.default]));
  const where = (path: string) => `(rules.overrides.${rule.id}.${path})`;
  const advice: string[] = [];
  if (flaps > 0) {
    advice.push(
      `raise holdDown from ${durationText(holdDownMs)} to ${durationText(2 * holdDownMs)}: its incidents cleared and fired again ${times(flaps)} within the hold-down ${where('holdDown')}`,
    );
  }
  if (shortLived.length > 0) {
    const why = `${shortLived.length} of its incidents resolved within ${formatMinutes(input.shortLivedMs)}`;
    const seen = new Set(shortLived.flatMap((i) => (i.evidence[rule.id] ?? []).map((e) => e.threshold)));
    const candidates = tunables(rule.when);
    const tunable = candidates.find((t) => seen.has(params[t.param] ?? Number.NaN)) ?? candidates[0];
    const sustained = sustainedConditions(rule.when)[0];
    if (tunable) {
      const now = params[tunable.param] ?? 0;
      const raise = tunable.op === '>' || tunable.op === '>=';
      const next = Number((raise ? now * THRESHOLD_STEP : now / THRESHOLD_STEP).toPrecision(2));
      advice.push(
        `${raise ? 'raise' : 'lower'} param ${tunable.param} from ${formatNumber(now)} to ${formatNumber(next)}: ${why} ${where(`params.${tunable.param}`)}`,
      );
    }
    if (sustained) {
      advice.push(
        `needs more samples: ${sustained.m + 1} of ${sustained.n + 1} instead of ${sustained.m} of ${sustained.n} on ${describeOperand(sustained.of)}${tunable ? '' : `: ${why}`} (in the rule itself)`,
      );
    } else if (!tunable) {
      advice.push(`needs more samples or a higher threshold: ${why} (in the rule itself: it has no parameter)`);
    }
  }
  if (reminders > 0) {
    const renotifyMs = durationMs(input.renotify);
    advice.push(
      `fix the cause, or raise notifications.renotify from ${durationText(renotifyMs)} to ${durationText(2 * renotifyMs)}: it sent ${reminders === 1 ? 'a reminder' : `${reminders} reminders`} while its incidents stayed open`,
    );
  }
  return {
    rule: rule.id,
    title: rule.title,
    fired: input.incidents.filter((i) => members(i).includes(rule.id)).length,
    asRoot: rooted.length,
    flaps,
    reminders,
    shortLived: shortLived.length,
    advice,
  };
}

function times(count: number): string {
  return count === 1 ? 'once' : `${count} times`;
}

type LeafCondition = Exclude<Condition, { readonly kind: 'allOf' | 'anyOf' | 'noneOf' }>;

/** Parts of a condition whose being met makes the rule fire; under `noneOf`, meeting them holds it back. */
function firing(condition: Condition): LeafCondition[] {
  switch (condition.kind) {
    case 'allOf':
    case 'anyOf':
      return condition.conditions.flatMap(firing);
    case 'noneOf':
      return [];
    default:
      return [condition];
  }
}

function tunables(condition: Condition): Tunable[] {
  return firing(condition).flatMap((c): Tunable[] => {
    if (c.kind === 'absent') return [];
    const own = typeof c.value === 'string' ? [{ param: c.value.slice(1), op: c.op }] : [];
    const where =
      c.kind === 'window' && typeof c.where?.value === 'string'
        ? [{ param: c.where.value.slice(1), op: c.where.op }]
        : [];
    return [...own, ...where];
  });
}

function sustainedConditions(condition: Condition): SustainedCondition[] {
  return firing(condition).filter((c): c is SustainedCondition => c.kind === 'sustained');
}
