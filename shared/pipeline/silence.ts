import { ambiguousClusterMessage, lookUpCluster, type NamedCluster } from '../config/cluster-identity.ts';
import { describeSeconds, durationOutOfRange, SILENCE_BOUNDS } from '../engine/bounds.ts';
import { durationMs, isDuration } from '../engine/duration.ts';
import type { Mute } from '../engine/maintenance.ts';
import { formatMatcher, type Labels, type Matcher, parseMatcher } from '../engine/matchers.ts';
import { SentinelError } from '../errors.ts';
import { suggestion } from '../nearest-name.ts';
import { isIsoUtc, isoSeconds } from '../time.ts';

/**
 * A silence: a mute added at run time (`sentinel silence add`), kept in the pipeline's store rather than in the
 * configuration, so that "hold staging's node-churn tickets for two hours" needs no deploy. It covers the incidents
 * its matchers match, as amtool's silences do: on the cluster (`cluster=prod-euw1`), its labels
 * (`environment=staging`) and the incident's root rule (`rule=node-churn`). The mute stage treats it as it treats a
 * maintenance window: it holds back what each rule's maintenance policy lets a mute hold back, and never a severe,
 * sustained outage, unless it says it includes pages; then it holds those back too, for a bounded time.
 *
 * A silence stored before matchers names `cluster` (and `rule`) instead, which the mute stage still reads.
 */
export interface Silence extends Mute {
  readonly id: string;
  /** Set when it was ended early (`sentinel silence expire`): when, and by whom. `to` is then that time. */
  readonly expired?: { readonly at: number; readonly by: string };
  /** Each time it was extended (`sentinel silence extend`): when, by whom, and the end it had before. */
  readonly extended?: readonly { readonly at: number; readonly by: string; readonly from: number }[];
}

/** A silence the command line asked for, before it has an id, a start and an author. */
export interface SilenceRequest {
  /** Matchers as the command line writes them: `environment=staging`, `rule!=node-churn`. */
  readonly matchers: readonly string[];
  /** When it starts, as an ISO-8601 UTC time; now when unset. */
  readonly start?: string;
  /** How long it lasts from its start, as a duration: `2h`. */
  readonly for: string;
  readonly reason: string;
  /** Whether it may hold back pages (`--include-pages`). */
  readonly includePages?: boolean;
}

/** What the configuration knows that matchers may name: each cluster's labels, and the rule ids. */
export interface SilenceVocabulary {
  /** Every configured cluster's labels, `cluster`, `account` and `region` included. */
  readonly clusters: readonly Labels[];
  readonly rules: readonly string[];
  /**
   * The configured clusters' identities, so that `cluster=NAME` may give an EKS name no other cluster shares, and an
   * EKS name several share is refused with their display names.
   */
  readonly identities?: readonly NamedCluster[];
}

/** What a new silence is checked against, and who adds it when. */
export interface SilenceContext {
  readonly id: string;
  readonly at: number;
  /** Who asks, as AWS knows the caller (an STS caller-identity ARN). */
  readonly author: string;
  readonly known: SilenceVocabulary;
}

/** A silence that cannot be added, extended or expired, with every reason why. */
export class SilenceError extends SentinelError {}

/** The matchers of a request, or a SilenceError naming each part of it that is wrong, as the command line writes it. */
export function checkSilenceRequest(request: SilenceRequest, known: SilenceVocabulary, at: number): Matcher[] {
  const matchers: Matcher[] = [];
  const problems: string[] = [];
  if (request.matchers.length === 0) {
    problems.push('no --match: say what to silence, like --match cluster=prod-euw1 or --match environment=staging');
  }
  for (const text of request.matchers) {
    const parsed = parseMatcher(text);
    if (!parsed) {
      problems.push(`--match ${JSON.stringify(text)} is not a matcher: write NAME=VALUE or NAME!=VALUE`);
      continue;
    }
    const found = parsed.name === 'cluster' ? lookUpCluster(parsed.value, known.identities ?? []) : undefined;
    if (found && 'ambiguous' in found) {
      problems.push(`--match ${formatMatcher(parsed)}: ${ambiguousClusterMessage(parsed.value, found.ambiguous)}`);
      continue;
    }
    // The cluster label holds display names: an EKS name only one cluster has stands for that cluster's.
    const matcher = found && 'found' in found ? { ...parsed, value: found.found } : parsed;
    const problem = unknownInMatcher(matcher, known);
    if (problem) problems.push(problem);
    else matchers.push(matcher);
  }
  if (matchers.length > 0 && !known.clusters.some((labels) => clusterMatched(matchers, labels))) {
    problems.push(`--match ${matchers.map(formatMatcher).join(' --match ')} matches no configured cluster`);
  }
  problems.push(...startProblems(request.start, at));
  problems.push(...durationProblems('--for', request.for, request.includePages === true));
  if (request.reason.trim() === '') problems.push('--reason says nothing: say why, for whoever reads the digest');
  if (problems.length > 0) {
    throw new SilenceError(`cannot add the silence:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return matchers;
}

/** The silence a request asks for, or a SilenceError naming each part of the request that is wrong. */
export function newSilence(request: SilenceRequest, context: SilenceContext): Silence {
  const matchers = checkSilenceRequest(request, context.known, context.at);
  const from = request.start === undefined ? context.at : Math.max(context.at, Date.parse(request.start));
  return {
    id: context.id,
    matchers,
    ...(request.includePages && { includePages: true }),
    from,
    to: from + durationMs(request.for),
    reason: request.reason.trim(),
    author: context.author,
  };
}

/**
 * The silence extended by `duration` past its end (or past now, when it has not yet started it still ends later), by
 * `by` at `at`; one that has ended is refused, and so is an end further from now than a new silence could have.
 */
export function extendedSilence(silence: Silence, duration: string, at: number, by: string): Silence {
  if (silence.to <= at) {
    throw new SilenceError(`silence ${silence.id} already ended at ${isoSeconds(silence.to)}: add a new one`);
  }
  const includePages = silence.includePages === true;
  const problems = durationProblems('--for', duration, false);
  if (problems.length === 0) {
    const to = silence.to + durationMs(duration);
    const limit = includePages ? SILENCE_BOUNDS.includePagesMaxSeconds : SILENCE_BOUNDS.maxSeconds;
    if (to - at > limit * 1000) {
      problems.push(
        `--for ${duration} would end it at ${isoSeconds(to)}, more than ${describeSeconds(limit)} from now, the most a${includePages ? ' silence that includes pages' : ' silence'} may have left (see SILENCE_BOUNDS)`,
      );
    } else {
      return { ...silence, to, extended: [...(silence.extended ?? []), { at, by, from: silence.to }] };
    }
  }
  throw new SilenceError(`cannot extend silence ${silence.id}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
}

/** The silence ended at `at` by `by`; one that has already ended is refused. */
export function expiredSilence(silence: Silence, at: number, by: string): Silence {
  if (silence.to <= at) throw new SilenceError(`silence ${silence.id} already ended at ${isoSeconds(silence.to)}`);
  return { ...silence, to: Math.max(silence.from, at), expired: { at, by } };
}

/** What a silence covers, as the command line and the digest say it: its matchers, or a stored silence's cluster. */
export function silenceScope(silence: Pick<Silence, 'cluster' | 'rule' | 'matchers' | 'includePages'>): string {
  const matchers = silenceMatchers(silence);
  const scope = matchers.length > 0 ? matchers.join(', ') : 'everything';
  return silence.includePages ? `${scope}, pages included` : scope;
}

/** A silence's matchers as amtool writes them, a silence stored before matchers included: `cluster=prod-euw1`. */
export function silenceMatchers(silence: Pick<Silence, 'cluster' | 'rule' | 'matchers'>): string[] {
  return [
    ...(silence.cluster !== undefined ? [`cluster=${silence.cluster}`] : []),
    ...(silence.rule !== undefined ? [`rule=${silence.rule}`] : []),
    ...(silence.matchers ?? []).map(formatMatcher),
  ];
}

/** The silences that hold at any time in [from, to): the ones a poll at `from` applies, or a week's digest lists. */
export function silencesDuring(silences: readonly Silence[], from: number, to = from + 1): Silence[] {
  return silences.filter((s) => s.from < to && s.to > from);
}

/**
 * The silences that apply to the step at `at`, evaluated at `now`: those in force now. A step is minutes older than
 * the poll that evaluates it (the ingestion lag), and a silence holds from the moment it is added, so one added a
 * minute ago covers the step read now, although its data is older than the silence.
 */
export function silencesForStep(silences: readonly Silence[], at: number, now: number): Silence[] {
  return silencesDuring(silences, now).map((s) => ({ ...s, from: Math.min(s.from, at) }));
}

/** Whether the matchers that are not about the rule hold on a cluster's labels. */
function clusterMatched(matchers: readonly Matcher[], labels: Labels): boolean {
  return matchers.every((m) => m.name === 'rule' || ((labels[m.name] ?? '') === m.value) === (m.op === '='));
}

/** A matcher naming a label, a value or a rule the configuration does not have, with the nearest one it does. */
function unknownInMatcher(matcher: Matcher, known: SilenceVocabulary): string | undefined {
  const where = `--match ${formatMatcher(matcher)}`;
  if (matcher.name === 'rule') {
    if (known.rules.includes(matcher.value)) return undefined;
    return `${where}: no rule ${JSON.stringify(matcher.value)}: ${suggestion(matcher.value, known.rules)}`;
  }
  const values = new Set(known.clusters.flatMap((labels) => (matcher.name in labels ? [labels[matcher.name]] : [])));
  if (values.size === 0) {
    const names = [...new Set(['rule', ...known.clusters.flatMap((labels) => Object.keys(labels))])];
    return `${where}: no cluster has the label ${JSON.stringify(matcher.name)}: ${suggestion(matcher.name, names)}`;
  }
  if (values.has(matcher.value)) return undefined;
  const what = matcher.name === 'cluster' ? 'no cluster' : `no cluster has ${matcher.name}=`;
  const named =
    matcher.name === 'cluster' ? `${what} ${JSON.stringify(matcher.value)}` : `${what}${JSON.stringify(matcher.value)}`;
  return `${where}: ${named} in the configuration: ${suggestion(
    matcher.value,
    [...values].filter((v) => v !== undefined),
  )}`;
}

function startProblems(start: string | undefined, at: number): string[] {
  if (start === undefined) return [];
  if (!isIsoUtc(start))
    return [`--start ${JSON.stringify(start)} is not a time: write an ISO-8601 UTC time like 2026-03-04T09:00:00Z`];
  const ahead = Date.parse(start) - at;
  if (ahead > SILENCE_BOUNDS.startWithinSeconds * 1000) {
    return [
      `--start ${start} is more than ${describeSeconds(SILENCE_BOUNDS.startWithinSeconds)} ahead (see SILENCE_BOUNDS): declare a maintenance window for planned work`,
    ];
  }
  return [];
}

function durationProblems(option: string, text: string, includePages: boolean): string[] {
  if (!isDuration(text))
    return [`${option} ${JSON.stringify(text)} is not a duration: write a number and a unit, like 30m, 2h or 1d`];
  const max = includePages ? SILENCE_BOUNDS.includePagesMaxSeconds : SILENCE_BOUNDS.maxSeconds;
  const outOfRange = durationOutOfRange(text, SILENCE_BOUNDS.minSeconds, max);
  if (outOfRange === undefined) return [];
  return [
    `${option} ${text}: ${outOfRange}${includePages ? ' for a silence that includes pages' : ''} (see SILENCE_BOUNDS)`,
  ];
}
