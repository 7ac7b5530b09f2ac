import { durationOutOfRange, SILENCE_BOUNDS } from '../engine/bounds.ts';
import { durationMs, isDuration } from '../engine/duration.ts';
import type { Mute } from '../engine/maintenance.ts';
import { SentinelError } from '../errors.ts';

/**
 * A silence: a mute added at run time (`sentinel silence add`), kept in the pipeline's store rather than in the
 * configuration, so that "hold prod-euw1's tickets for two hours" needs no deploy. The mute stage treats it as it
 * treats a maintenance window: it holds back what each rule's maintenance policy lets a mute hold back, and never a
 * severe, sustained outage.
 */
export interface Silence extends Mute {
  readonly id: string;
  /** Set when it was ended early (`sentinel silence expire`): when, and by whom. `to` is then that time. */
  readonly expired?: { readonly at: number; readonly by: string };
}

/** A silence the command line asked for, before it has an id, a start and an author. */
export interface SilenceRequest {
  readonly cluster: string;
  readonly rule?: string;
  /** How long it lasts, as a duration: `2h`. */
  readonly for: string;
  readonly reason: string;
}

/** What a new silence is checked against: the configured clusters and rules, when a configuration is given. */
export interface SilenceContext {
  readonly id: string;
  readonly at: number;
  /** Who asks, as AWS knows the caller (an STS caller-identity ARN). */
  readonly author: string;
  readonly clusters?: readonly string[];
  readonly rules?: readonly string[];
}

/** A silence that cannot be added or expired, with every reason why. */
export class SilenceError extends SentinelError {}

/** Throw a SilenceError naming each part of the request that is wrong, as the command line writes it. */
export function checkSilenceRequest(request: SilenceRequest, known: Pick<SilenceContext, 'clusters' | 'rules'>): void {
  const problems = [
    ...unknownName('cluster', request.cluster, known.clusters),
    ...(request.rule === undefined ? [] : unknownName('rule', request.rule, known.rules)),
    ...durationProblems(request.for),
    ...(request.reason.trim() === '' ? ['--reason says nothing: say why, for whoever reads the digest'] : []),
  ];
  if (problems.length > 0) {
    throw new SilenceError(`cannot add the silence:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** The silence a request asks for, or a SilenceError naming each part of the request that is wrong. */
export function newSilence(request: SilenceRequest, context: SilenceContext): Silence {
  checkSilenceRequest(request, context);
  return {
    id: context.id,
    cluster: request.cluster,
    ...(request.rule !== undefined && { rule: request.rule }),
    from: context.at,
    to: context.at + durationMs(request.for),
    reason: request.reason.trim(),
    author: context.author,
  };
}

/** The silence ended at `at` by `by`; one that has already ended is refused. */
export function expiredSilence(silence: Silence, at: number, by: string): Silence {
  if (silence.to <= at)
    throw new SilenceError(`silence ${silence.id} already ended at ${new Date(silence.to).toISOString()}`);
  return { ...silence, to: Math.max(silence.from, at), expired: { at, by } };
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

function unknownName(what: string, name: string, known: readonly string[] | undefined): string[] {
  if (known === undefined || known.includes(name)) return [];
  return [`--${what} ${JSON.stringify(name)} is not a ${what} of the configuration, which has ${known.join(', ')}`];
}

function durationProblems(text: string): string[] {
  if (!isDuration(text))
    return [`--for ${JSON.stringify(text)} is not a duration: write a number and a unit, like 30m, 2h or 1d`];
  const outOfRange = durationOutOfRange(text, SILENCE_BOUNDS.minSeconds, SILENCE_BOUNDS.maxSeconds);
  return outOfRange === undefined ? [] : [`--for ${text}: ${outOfRange} (see SILENCE_BOUNDS)`];
}
