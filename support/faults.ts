/**
 * Faults the loopback AWS fakes inject, shared by every fake so tests script failures the same way whatever the
 * service. Error faults are answered in the service's own error shape (see each server's `faultAnswers`), so the
 * real SDK parses and classifies them exactly as it would a real throttle or outage.
 */

/** Faults answered with the service's error response. */
export type ErrorFaultKind = 'throttle' | 'server-error' | 'unavailable';

export type Fault = { kind: ErrorFaultKind } | { kind: 'drop' } | { kind: 'slow'; delayMs: number };

export type FaultKind = Fault['kind'];

/** Which requests a fault applies to and how long it stays armed; without `times` it stays armed until cleared. */
export interface FaultTarget {
  /** Operation name(s), e.g. `GetMetricData`; every operation when omitted. */
  operation?: string | readonly string[];
  /** Fire on the next N matching requests, then disarm. */
  times?: number;
  /**
   * Fire only on SDK attempts numbered below this, read from the `amz-sdk-request: attempt=K; max=M` header the
   * SDK's retry middleware sends: `beforeAttempt: 3` fails attempts 1 and 2 of every call, so a client allowed three
   * attempts always gets through on its last one.
   */
  beforeAttempt?: number;
}

export type FaultRule = Fault & FaultTarget;

export interface FaultPlanOptions {
  /** Delay added to every request before it is answered, e.g. to model the round trip to a region. */
  latencyMs?: number;
}

const FAULT_KINDS: readonly FaultKind[] = ['throttle', 'server-error', 'unavailable', 'slow', 'drop'];

interface ArmedRule {
  readonly rule: FaultRule;
  readonly operations: ReadonlySet<string> | undefined;
  remaining: number;
}

/** The attempt number the SDK stamps on a request; a request without the header is treated as a first attempt. */
export function sdkAttempt(header: string | string[] | undefined): number {
  const match = /attempt=(\d+)/.exec(String(header ?? ''));
  return match?.[1] ? Number(match[1]) : 1;
}

export class FaultPlan {
  latencyMs: number;
  /** How many faults of each kind fired since the last `reset()`. */
  readonly fired = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  readonly #initialLatencyMs: number;
  #rules: ArmedRule[] = [];

  constructor(options: FaultPlanOptions = {}) {
    this.#initialLatencyMs = options.latencyMs ?? 0;
    this.latencyMs = this.#initialLatencyMs;
  }

  /** Arms a fault; when several match a request, the one injected first fires. */
  inject(rule: FaultRule): this {
    if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times > 0)) {
      throw new RangeError(`times must be a positive integer, got ${rule.times}`);
    }
    // Attempts count from 1, so anything below 2 could never fire and is certainly a mistake in the test.
    if (rule.beforeAttempt !== undefined && !(Number.isInteger(rule.beforeAttempt) && rule.beforeAttempt >= 2)) {
      throw new RangeError(`beforeAttempt must be an integer of at least 2, got ${rule.beforeAttempt}`);
    }
    if (rule.kind === 'slow' && !(Number.isFinite(rule.delayMs) && rule.delayMs >= 0)) {
      throw new RangeError(`delayMs must be a non-negative number, got ${rule.delayMs}`);
    }
    const { operation } = rule;
    this.#rules.push({
      rule,
      operations:
        operation === undefined ? undefined : new Set(typeof operation === 'string' ? [operation] : operation),
      remaining: rule.times ?? Number.POSITIVE_INFINITY,
    });
    return this;
  }

  /** Disarms every fault; latency and counters stay. */
  clear(): void {
    this.#rules = [];
  }

  /** Disarms every fault, zeroes the counters and restores the latency the plan started with. */
  reset(): void {
    this.clear();
    this.latencyMs = this.#initialLatencyMs;
    for (const kind of FAULT_KINDS) {
      this.fired[kind] = 0;
    }
  }

  /** The fault to apply to this request, if any, counted as fired and used up. */
  take(operation: string, attempt: number): Fault | undefined {
    const armed = this.#rules.find(
      ({ rule, operations }) =>
        (operations === undefined || operations.has(operation)) &&
        (rule.beforeAttempt === undefined || attempt < rule.beforeAttempt),
    );
    if (!armed) {
      return undefined;
    }
    armed.remaining -= 1;
    if (armed.remaining === 0) {
      this.#rules = this.#rules.filter((other) => other !== armed);
    }
    this.fired[armed.rule.kind] += 1;
    return armed.rule;
  }
}
