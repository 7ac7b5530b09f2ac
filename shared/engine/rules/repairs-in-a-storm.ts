import type { Condition } from '../condition.ts';
import type { RuleParam } from '../rule.ts';
import { errorShare, notReadyShare, possibleRepairs, repairedShare } from './operands.ts';

/**
 * "Nodes are being repaired in a storm", node-repair-storm's whole condition, with its parameters: node-repair-storm
 * fires on it and nodes-unreachable stands aside whenever it holds, so that exactly one of them speaks for NotReady
 * nodes that are being replaced (docs/rules.md). Relative to the cluster, so that a large cluster's routine churn (a
 * node or two a minute of 2,000) never reads as repairs.
 */
export const repairsInAStormParams = {
  replacedShare: {
    default: 0.2,
    unit: 'ratio',
    description: 'share of the cluster replaced within 30 minutes, spot interruptions and scale-ins left out',
  },
  minReplaced: {
    default: 3,
    unit: 'nodes',
    description: 'fewest replacements that count, for small clusters (spot interruptions and scale-ins left out)',
  },
  stormShare: {
    default: 0.1,
    unit: 'ratio',
    description:
      'share of the cluster repaired within 10 minutes: repairs in quick succession, half again the rate of the 30-minute share',
  },
  stormRepairs: {
    default: 2,
    unit: 'nodes',
    description:
      'fewest repairs within 10 minutes that count as a storm, and within 4 minutes as a repair loop starting (spot interruptions and scale-ins left out)',
  },
  loopMinutes: {
    default: 9,
    unit: 'minutes',
    description:
      'minutes of the last 10 with a repair, for a repair loop that has run long enough to be its own baseline',
  },
  loopRise: {
    default: 1,
    unit: 'nodes per minute',
    description:
      'repairs a minute over the last 4 minutes above the cluster’s own rate of the 56 before: a loop starting',
  },
  loopRiseRatio: {
    default: 2,
    unit: 'x',
    description:
      'repairs over the last 4 minutes as a multiple of the cluster’s own rate of the 56 before, besides loopRise: a busy cluster’s routine bursts are not a loop',
  },
  loopRiseRatioAlone: {
    default: 10,
    unit: 'x',
    description:
      'repairs over the last 4 minutes as a multiple of the cluster’s own rate of the 56 before that counts without loopRise, for a cluster that repairs a node in ten minutes or less',
  },
  loopNotReadyShare: {
    default: 0.05,
    unit: 'ratio',
    description: 'share of nodes held NotReady that makes repairs above the cluster’s own rate a loop',
  },
  loopNotReadyRise: {
    default: 0.05,
    unit: 'ratio',
    description:
      'rise of the NotReady share within the last hour (its peak of the last 45 minutes above that of the 15 before) that a loop starting needs: its nodes went NotReady one repair delay before the repairs',
  },
  loopReadyPerRepair: {
    default: 0.35,
    unit: 'nodes per repair',
    description:
      'most Ready nodes gained per repair as the repairs rise (the last 3 minutes against the 8 before): a repair that works brings a Ready node back, a loop’s replacement fails like the node before it',
  },
  loopMinNotReady: {
    default: 3,
    unit: 'nodes',
    description: 'fewest nodes held NotReady that make repairs a loop, for small clusters',
  },
  loopRepairsPerNotReady: {
    default: 0.25,
    unit: 'ratio',
    description:
      'most repairs a minute per NotReady node over 10 minutes: nodes held NotReady for the repair delay (at least 4 minutes each), not the joiners of a rotation',
  },
  repairBrakeShare: {
    default: 0.2,
    unit: 'ratio',
    description:
      'share of nodes unhealthy above which EKS stops repairing a node group (its default brake): NotReady above it is not the loop’s',
  },
} as const satisfies Record<string, RuleParam>;

/** node-repair-storm's gate: nodes failing to report or a struggling control plane. */
export const stormGateParams = {
  notReadyShare: { default: 0.3, unit: 'ratio', description: 'share of nodes NotReady at once' },
  writeP99Seconds: {
    default: 1,
    unit: 'seconds',
    description: 'write p99 that counts as a struggling control plane',
  },
  errorRatio: { default: 0.02, unit: 'ratio', description: '5xx share that counts as a struggling control plane' },
} as const satisfies Record<string, RuleParam>;

/**
 * The names the gate's parameters have in a rule: node-repair-storm's own, or, in a rule whose parameters of those
 * names mean something else (nodes-unreachable's quarter NotReady and "control plane involved"), prefixed names that
 * carry the same defaults.
 */
export interface StormGateNames {
  readonly notReadyShare: `$${string}`;
  readonly writeP99Seconds: `$${string}`;
  readonly errorRatio: `$${string}`;
}
export const STORM_GATE: StormGateNames = {
  notReadyShare: '$notReadyShare',
  writeP99Seconds: '$writeP99Seconds',
  errorRatio: '$errorRatio',
};
export const STORM_GATE_IN_NODES_UNREACHABLE: StormGateNames = {
  notReadyShare: '$stormNotReadyShare',
  writeP99Seconds: '$stormWriteP99Seconds',
  errorRatio: '$stormErrorRatio',
};

/** The rule whose storm this is: its parameters are set there, and nodes-unreachable follows them. */
export const NODE_REPAIR_STORM = 'node-repair-storm';

const following =
  (param: string, description?: string) =>
  (spec: RuleParam): RuleParam => ({
    ...spec,
    ...(description && { description }),
    follows: { rule: NODE_REPAIR_STORM, param },
  });

/**
 * The storm's parameters as nodes-unreachable declares them: each follows node-repair-storm's, overrides included, so
 * that the two rules judge one storm and an override of it is written once, on node-repair-storm. The gate's carry the
 * `storm` prefix there, since nodes-unreachable's own `notReadyShare`, `writeP99Seconds` and `errorRatio` mean
 * something else.
 */
export const stormParamsFollowed: Record<string, RuleParam> = {
  ...Object.fromEntries(Object.entries(repairsInAStormParams).map(([name, spec]) => [name, following(name)(spec)])),
  stormNotReadyShare: following(
    'notReadyShare',
    'node-repair-storm’s notReadyShare: a storm with this share NotReady is node-repair-storm’s page',
  )(stormGateParams.notReadyShare),
  stormWriteP99Seconds: following(
    'writeP99Seconds',
    'node-repair-storm’s writeP99Seconds: a storm while writes are this slow is node-repair-storm’s page',
  )(stormGateParams.writeP99Seconds),
  stormErrorRatio: following(
    'errorRatio',
    'node-repair-storm’s errorRatio: a storm with this 5xx share is node-repair-storm’s page',
  )(stormGateParams.errorRatio),
};

// A repair loop, judged on how it shows rather than on its pace. EKS replaces a node once a condition has held for its
// repair delay (30 minutes for NotReady by default), at most maxParallelNodesRepaired at once, and stops above a
// fifth of a node group unhealthy; the replacement joins the same sick control plane (or boots the same broken image)
// and goes NotReady in turn. So a loop is repairs above the cluster's own rate while a share of the nodes is held
// NotReady, under the brake. Held, not joining: the nodes a loop repairs were NotReady for the repair delay first, so
// there are many NotReady nodes for each repair a minute, while a rotation's joiners are NotReady only while they boot
// (a handful for two nodes a minute). Routine churn keeps a handful of nodes NotReady; a zone cut off holds more than
// the brake, and EKS repairs none of it.
const underTheBrake: Condition = {
  kind: 'sustained',
  of: notReadyShare,
  op: '<=',
  value: '$repairBrakeShare',
  m: 3,
  n: 4,
};
const heldNotJoining: Condition = {
  kind: 'window',
  of: { ratio: [possibleRepairs, 'nodes.notready'], minDenominator: 1 },
  aggregate: 'avg',
  window: '10m',
  op: '<=',
  value: '$loopRepairsPerNotReady',
};

// Not a repair that works. A repair that works takes a dead node out and brings a Ready one back (its replacement
// registers a minute or two after the repair and is Ready once its kubelet and network are up), so the Ready count
// climbs by about a node for each repair; a loop's replacement goes NotReady like the node before it, and the Ready
// count holds. Read as the Ready nodes gained over the last 3 minutes against the 8 before, per rise of the repair
// rate over the same windows: three minutes take in a replacement's registration and join, eight minutes steady the
// count the repairs began from. It is unknown, so no loop starting, once the repairs have run long enough to be their
// own baseline.
const ready = { difference: ['nodes.total', 'nodes.notready'] } as const;
const notHealing: Condition = {
  kind: 'change',
  of: ready,
  per: possibleRepairs,
  aggregate: 'avg',
  window: '3m',
  baseline: '8m',
  mode: 'delta',
  op: '<=',
  value: '$loopReadyPerRepair',
};

/** A struggling control plane, as the gate reads it: slow writes or 5xx in 2 of the last 5 minutes. */
const controlPlaneStruggling = (names: StormGateNames) =>
  ({
    kind: 'anyOf',
    conditions: [
      { kind: 'sustained', of: 'apiserver.write.p99', op: '>=', value: names.writeP99Seconds, m: 2, n: 5 },
      { kind: 'sustained', of: errorShare, op: '>=', value: names.errorRatio, m: 2, n: 5 },
    ],
  }) as const satisfies Condition;

const riseOverFourMinutes = {
  kind: 'change',
  of: possibleRepairs,
  aggregate: 'avg',
  window: '4m',
  baseline: '56m',
  op: '>=',
} as const;

// The loop starting: repairs of the last 4 minutes above the cluster's own rate of the 56 before (a node a minute
// above it and twice it, or ten times it on a cluster that repairs a node in ten minutes or less), while NotReady has
// held for 6 of the last 8 minutes, the minutes before the repairs included: NotReady comes first, by the repair delay,
// so its evidence is in when the repairs begin and the page comes within 3 minutes of them. The Ready count must not
// climb with the repairs (a repair that works), unless the control plane struggles. The NotReady share must also
// have risen within the last hour (its peak of the last 45 minutes by loopNotReadyRise above that of the 15 before):
// the repairs of a loop follow the nodes going NotReady by one repair delay (30 minutes by default, 45 with the
// share's build-up),
// while routine churn beside a share NotReady for hours (one zone of six cut off, its repair paused) is no loop
// starting, however its bursts fall. Four minutes and fifty-six, and forty-five and fifteen, fit the hour the minute
// read already holds. node-repair-storm's maintenance policy lets it through a window: a node image rolled out in an
// upgrade window is the likeliest loop, and the upgrade does not explain it. `names` are the gate's parameter names in
// the rule that reads it.
export const loopStarting = (names: StormGateNames): Condition => ({
  kind: 'allOf',
  conditions: [
    underTheBrake,
    { kind: 'sustained', of: notReadyShare, op: '>=', value: '$loopNotReadyShare', m: 6, n: 8 },
    { kind: 'sustained', of: 'nodes.notready', op: '>=', value: '$loopMinNotReady', m: 6, n: 8 },
    heldNotJoining,
    // A struggling control plane is the loop's cause as often as not, and auto-repair reacting to it pages at once.
    { kind: 'anyOf', conditions: [notHealing, controlPlaneStruggling(names)] },
    {
      kind: 'change',
      of: notReadyShare,
      aggregate: 'max',
      window: '45m',
      baseline: '15m',
      mode: 'delta',
      op: '>=',
      value: '$loopNotReadyRise',
    },
    { kind: 'window', of: possibleRepairs, aggregate: 'sum', window: '4m', op: '>=', value: '$stormRepairs' },
    {
      kind: 'anyOf',
      conditions: [
        {
          kind: 'allOf',
          conditions: [
            { ...riseOverFourMinutes, mode: 'delta', value: '$loopRise' },
            { ...riseOverFourMinutes, mode: 'ratio', value: '$loopRiseRatio' },
          ],
        },
        { ...riseOverFourMinutes, mode: 'ratio', value: '$loopRiseRatioAlone' },
      ],
    },
  ],
});

// The loop once it has become its own baseline, on a large cluster at its capped pace: a repair in nearly every
// minute with NotReady held. Routine churn beside a share held NotReady looks the same without the loop's start, so
// this counts only behind the gate (nodes failing to report at 30 %, or a struggling control plane).
const loopRunning: Condition = {
  kind: 'allOf',
  conditions: [
    underTheBrake,
    { kind: 'sustained', of: notReadyShare, op: '>=', value: '$loopNotReadyShare', m: 10, n: 12 },
    heldNotJoining,
    {
      kind: 'window',
      of: possibleRepairs,
      aggregate: 'count',
      window: '10m',
      where: { op: '>=', value: 1 },
      op: '>=',
      value: '$loopMinutes',
    },
  ],
};

// A fifth of the cluster within half an hour, or repairs in quick succession: a repair loop replaces a node, the
// replacement fails like the one before it, and the next repair follows within minutes, so the second or third repair
// already shows the storm that the half hour would only confirm later.
const repairsInAStorm: Condition = {
  kind: 'anyOf',
  conditions: [
    {
      kind: 'allOf',
      conditions: [
        { kind: 'window', of: repairedShare, aggregate: 'sum', window: '30m', op: '>=', value: '$replacedShare' },
        { kind: 'window', of: possibleRepairs, aggregate: 'sum', window: '30m', op: '>=', value: '$minReplaced' },
      ],
    },
    {
      kind: 'allOf',
      conditions: [
        { kind: 'window', of: repairedShare, aggregate: 'sum', window: '10m', op: '>=', value: '$stormShare' },
        { kind: 'window', of: possibleRepairs, aggregate: 'sum', window: '10m', op: '>=', value: '$stormRepairs' },
      ],
    },
    loopRunning,
  ],
};

/**
 * node-repair-storm's condition: a repair loop starting, which is its own evidence (repairs above the cluster's rate
 * while nodes are held NotReady), or any storm of repairs together with nodes failing to report (a share NotReady at
 * once) or a struggling control plane, which separates auto-repair reacting to kubelets that cannot report from a
 * spot reclaim or a rotation. `names` are the gate's parameter names in the rule that reads it.
 */
export const nodeRepairStormCondition = (names: StormGateNames): Condition => ({
  kind: 'anyOf',
  conditions: [
    loopStarting(names),
    {
      kind: 'allOf',
      conditions: [
        repairsInAStorm,
        {
          kind: 'anyOf',
          conditions: [
            { kind: 'sustained', of: notReadyShare, op: '>=', value: names.notReadyShare, m: 3, n: 5 },
            ...controlPlaneStruggling(names).conditions,
          ],
        },
      ],
    },
  ],
});
