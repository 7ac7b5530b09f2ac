import { InputError, type InputProblem } from '../errors.ts';
import { didYouMean } from '../nearest-name.ts';
import { jsonPath } from '../schema-errors.ts';
import { MAX_DATAPOINTS_PER_CLUSTER_READ, outOfRange, rangeOfUnit } from './bounds.ts';
import { type Condition, conditionParams, conditionSignals } from './condition.ts';
import { durationMs } from './duration.ts';
import { conditionLookback, type Params } from './evaluate-condition.ts';
import type { Rule, RuleOverrides, Severity } from './rule.ts';
import type { SignalName } from './signals.ts';

/** The deployed poller reads one-minute samples. */
const DEPLOYED_STEP_SECONDS = 60;

/** A rule as it runs on one cluster, after the fleet's and the cluster's overrides. */
export interface ClusterRule {
  readonly rule: Rule;
  readonly severity: Severity;
  readonly params: Params;
  readonly holdDownMs: number;
}

/** Where each rule came from, so that a problem can point into the right file. */
export interface RuleOrigin {
  readonly file: string;
  readonly path: readonly PropertyKey[];
}

/**
 * A validated set of rules: ids unique, causal links and parameters resolvable, no cycle in what explains what.
 * Rules are kept explainers first, so that correlation sees a cause before its symptoms.
 */
export class RuleSet {
  private readonly byId: ReadonlyMap<string, Rule>;
  private readonly closure: ReadonlyMap<string, ReadonlySet<string>>;
  readonly rules: readonly Rule[];

  private constructor(rules: readonly Rule[]) {
    this.byId = new Map(rules.map((rule) => [rule.id, rule]));
    const closure = new Map<string, Set<string>>();
    const visit = (id: string): Set<string> => {
      const known = closure.get(id);
      if (known) return known;
      const reached = new Set<string>();
      closure.set(id, reached);
      for (const next of this.byId.get(id)?.explains ?? []) {
        reached.add(next);
        for (const further of visit(next)) reached.add(further);
      }
      return reached;
    };
    for (const rule of rules) visit(rule.id);
    this.closure = closure;
    // A rule explains strictly more than anything it explains, so a larger closure sorts first.
    this.rules = [...rules].sort((a, b) => this.explained(b.id).size - this.explained(a.id).size);
  }

  /** Validate rules from one or more files; every problem is reported at once, each with its file and path. */
  static compile(rules: readonly Rule[], origins: readonly RuleOrigin[]): RuleSet {
    const problems = new Map<string, InputProblem[]>();
    const report = (index: number, suffix: readonly PropertyKey[], message: string) => {
      const origin = origins[index] ?? { file: 'rules', path: [index] };
      const list = problems.get(origin.file) ?? [];
      list.push({ path: jsonPath([...origin.path, ...suffix]), message });
      problems.set(origin.file, list);
    };
    const ids = new Set<string>();
    rules.forEach((rule, index) => {
      if (ids.has(rule.id)) report(index, ['id'], `duplicate rule id "${rule.id}": ids must be unique`);
      ids.add(rule.id);
    });
    rules.forEach((rule, index) => {
      rule.explains.forEach((target, at) => {
        if (target === rule.id) report(index, ['explains', at], 'a rule cannot explain itself');
        else if (!ids.has(target))
          report(index, ['explains', at], `unknown rule "${target}"${didYouMean(target, ids)}`);
      });
      if (typeof rule.maintenance === 'object') {
        rule.maintenance.notifyWhenFiring?.forEach((target, at) => {
          if (!ids.has(target)) {
            report(
              index,
              ['maintenance', 'notifyWhenFiring', at],
              `unknown rule "${target}"${didYouMean(target, ids)}`,
            );
          }
        });
      }
      for (const [name, param] of Object.entries(rule.params)) {
        const followed = param.follows && rules.find((r) => r.id === param.follows?.rule);
        const problem = !param.follows
          ? undefined
          : !followed
            ? `follows unknown rule "${param.follows.rule}"${didYouMean(param.follows.rule, ids)}`
            : !Object.hasOwn(followed.params, param.follows.param)
              ? `follows "${param.follows.param}", which rule "${followed.id}" does not declare`
              : followed.params[param.follows.param]?.follows
                ? `follows "${param.follows.param}" of rule "${followed.id}", which follows another rule itself`
                : followed.params[param.follows.param]?.unit !== param.unit
                  ? `is in ${param.unit} but follows "${param.follows.param}" of rule "${followed.id}", in ${followed.params[param.follows.param]?.unit}`
                  : undefined;
        if (problem) report(index, ['params', name, 'follows'], problem);
      }
      for (const [condition, path] of conditionsOf(rule)) {
        for (const param of conditionParams(condition)) {
          if (!Object.hasOwn(rule.params, param)) {
            report(index, path, `uses $${param}, which is not declared in "params"`);
          }
        }
      }
    });
    // The poller reads every signal of the set over the longest window of any rule: that is what one rule costs.
    const signalsRead = new Set(rules.flatMap((rule) => conditionsOf(rule).flatMap(([c]) => conditionSignals(c)))).size;
    rules.forEach((rule, index) => {
      const samples = ruleLookback(rule, DEPLOYED_STEP_SECONDS);
      const datapoints = samples * signalsRead;
      if (datapoints > MAX_DATAPOINTS_PER_CLUSTER_READ) {
        report(
          index,
          ['when'],
          `reads ${samples} one-minute samples, so every cluster-read would ask CloudWatch for ${datapoints} datapoints (${signalsRead} signals × ${samples}); the limit is ${MAX_DATAPOINTS_PER_CLUSTER_READ}: shorten its windows`,
        );
      }
    });
    const cycle = findCycle(rules);
    if (cycle) {
      report(
        rules.findIndex((r) => r.id === cycle[0]),
        ['explains'],
        `causal links form a cycle: ${cycle.join(' -> ')}`,
      );
    }
    if (problems.size === 1) {
      const [file, list] = [...problems.entries()][0] as [string, InputProblem[]];
      throw new InputError(file, list);
    }
    if (problems.size > 1) {
      // Problems in several files are reported together, each path prefixed with its file.
      const all = [...problems.entries()].flatMap(([file, list]) =>
        list.map((p) => ({ ...p, path: `${file} ${p.path}` })),
      );
      throw new InputError([...problems.keys()].join(' and '), all);
    }
    return new RuleSet(rules);
  }

  get(id: string): Rule | undefined {
    return this.byId.get(id);
  }

  /** Every rule that `id` explains, directly or through others. */
  explained(id: string): ReadonlySet<string> {
    return this.closure.get(id) ?? new Set();
  }

  explains(cause: string, symptom: string): boolean {
    return this.explained(cause).has(symptom);
  }

  /** The shortest causal path from a root cause to a symptom, both included. */
  chain(cause: string, symptom: string): string[] {
    const previous = new Map<string, string>();
    const queue = [cause];
    for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
      if (current === symptom) break;
      for (const next of this.byId.get(current)?.explains ?? []) {
        if (!previous.has(next) && next !== cause) {
          previous.set(next, current);
          queue.push(next);
        }
      }
    }
    const path = [symptom];
    for (let at = previous.get(symptom); at !== undefined; at = previous.get(at)) path.unshift(at);
    return path[0] === cause ? path : [cause, symptom];
  }

  /**
   * Every signal some rule of the set (or of `rules`) reads, its maintenance condition included: what a poll must
   * fetch, no more.
   */
  signals(rules: readonly Rule[] = this.rules): ReadonlySet<SignalName> {
    return new Set(rules.flatMap((rule) => conditionsOf(rule).flatMap(([condition]) => conditionSignals(condition))));
  }

  /** Samples of history the whole set (or `rules`) reads at one step. */
  lookback(stepSeconds: number, rules: readonly Rule[] = this.rules): number {
    return Math.max(1, ...rules.map((rule) => ruleLookback(rule, stepSeconds)));
  }

  /**
   * Samples of history each signal is read over by `rules` at one step: the longest window of the conditions that
   * read it. A signal only short windows read needs no more, whatever the longest window of the set.
   */
  signalLookbacks(stepSeconds: number, rules: readonly Rule[] = this.rules): Map<SignalName, number> {
    const lookbacks = new Map<SignalName, number>();
    const visit = (condition: Condition): void => {
      if (condition.kind === 'allOf' || condition.kind === 'anyOf' || condition.kind === 'noneOf') {
        condition.conditions.forEach(visit);
        return;
      }
      const samples = conditionLookback(condition, stepSeconds);
      for (const signal of conditionSignals(condition)) {
        lookbacks.set(signal, Math.max(lookbacks.get(signal) ?? 1, samples));
      }
    };
    for (const rule of rules) for (const [condition] of conditionsOf(rule)) visit(condition);
    return lookbacks;
  }

  /** Problems with overrides written at `path` in `file` (unknown rules or parameters). */
  checkOverrides(overrides: RuleOverrides, path: readonly PropertyKey[]): InputProblem[] {
    return Object.entries(overrides).flatMap(([id, override]) => {
      const rule = this.byId.get(id);
      if (!rule) {
        const known = this.rules.map((r) => r.id);
        return [{ path: jsonPath([...path, id]), message: `unknown rule "${id}"${didYouMean(id, known)}` }];
      }
      return Object.entries(override.params ?? {}).flatMap(([param, value]) => {
        const declared = rule.params[param];
        const where = jsonPath([...path, id, 'params', param]);
        if (rule.retiredParams && Object.hasOwn(rule.retiredParams, param)) {
          const advice = rule.retiredParams[param];
          return [{ path: where, message: `rule "${id}" no longer has parameter "${param}": ${advice}` }];
        }
        if (!declared || !Object.hasOwn(rule.params, param)) {
          const known = Object.keys(rule.params).join(', ') || 'none';
          return [{ path: where, message: `rule "${id}" has no parameter "${param}"; it has: ${known}` }];
        }
        if (declared.follows) {
          const { rule: other, param: theirs } = declared.follows;
          return [
            {
              path: where,
              message: `rule "${id}" takes "${param}" from rule "${other}": override "${theirs}" there (rules.overrides.${other}.params.${theirs}), and both rules read it`,
            },
          ];
        }
        const problem = outOfRange(value, rangeOfUnit(declared.unit));
        return problem ? [{ path: where, message: problem }] : [];
      });
    });
  }

  /** The enabled rules for one cluster, with overrides applied in order (fleet-wide first, then the cluster's). */
  forCluster(layers: readonly RuleOverrides[]): ClusterRule[] {
    const overridden = (rule: Rule) => layers.map((layer) => layer[rule.id]).filter((o) => o !== undefined);
    // Each rule's values after the overrides, once: a following parameter reads its rule's value on this cluster,
    // whether or not that rule is enabled here.
    const own = new Map(
      this.rules.map((rule) => {
        const params = Object.fromEntries(Object.entries(rule.params).map(([name, param]) => [name, param.default]));
        for (const override of overridden(rule)) Object.assign(params, override.params);
        return [rule.id, params];
      }),
    );
    return this.rules.flatMap((rule) => {
      const applied = overridden(rule);
      if ((applied.findLast((o) => o.enabled !== undefined)?.enabled ?? true) === false) return [];
      const params = { ...own.get(rule.id) };
      for (const [name, param] of Object.entries(rule.params)) {
        const value = param.follows && own.get(param.follows.rule)?.[param.follows.param];
        if (value !== undefined) params[name] = value;
      }
      const severity = applied.findLast((o) => o.severity)?.severity ?? rule.severity;
      const holdDown = applied.findLast((o) => o.holdDown)?.holdDown ?? rule.holdDown;
      return [{ rule, severity, params, holdDownMs: durationMs(holdDown) }];
    });
  }
}

/** Every condition a rule evaluates, with where it is written: `when`, and its maintenance policy's `notifyWhen`. */
function conditionsOf(rule: Rule): [Condition, PropertyKey[]][] {
  const severe = typeof rule.maintenance === 'object' ? rule.maintenance.notifyWhen : undefined;
  return [
    [rule.when, ['when']],
    ...(severe ? [[severe, ['maintenance', 'notifyWhen']] as [Condition, PropertyKey[]]] : []),
  ];
}

/** Samples of history one rule reads at one step. */
function ruleLookback(rule: Rule, stepSeconds: number): number {
  return Math.max(...conditionsOf(rule).map(([condition]) => conditionLookback(condition, stepSeconds)));
}

function findCycle(rules: readonly Rule[]): string[] | undefined {
  const explains = new Map(rules.map((rule) => [rule.id, rule.explains]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    // A rule naming itself is reported on its own, as "cannot explain itself".
    for (const next of (explains.get(id) ?? []).filter((target) => target !== id)) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const rule of rules) {
    const cycle = visit(rule.id);
    if (cycle) return cycle;
  }
  return undefined;
}
