/** What one call spends of a quota counted per second besides the call itself: the budget, and how much of it. */
export interface QuotaCost {
  readonly budget: string;
  readonly units: number;
}

export interface QuotaPacerOptions {
  /** Calls started in any one second. */
  readonly callsPerSecond: number;
  /** Units of each budget spent in any one second (datapoints of a tier, say); a budget not named is unlimited. */
  readonly budgets?: Readonly<Record<string, number>>;
  /**
   * Added to the one-second window: the service counts a call when it arrives, which is later, and less evenly
   * spaced, than when it was started here.
   */
  readonly marginMs?: number;
}

/**
 * Keeps the calls of one process under quotas counted per second, as CloudWatch counts GetMetricData's transactions
 * and datapoints: a call starts once, in the last second, the calls started and the units spent of its budget leave
 * room for it. One pacer is shared by every read of a process, so that concurrent reads share the quota instead of
 * each assuming it has it all.
 */
export class QuotaPacer {
  readonly #started: Slot[] = [];
  readonly #windowMs: number;

  constructor(private readonly options: QuotaPacerOptions) {
    this.#windowMs = 1000 + (options.marginMs ?? 0);
  }

  /**
   * Resolves when a call costing `cost` fits the window, with the call's slot in it. The caller marks the slot `sent`
   * as the request goes on the wire (each attempt, retries included): the service counts it from then, which may be
   * much later than now (a first call resolves credentials and opens a connection). Until then the slot holds its
   * place. Time is the monotonic clock: a wall clock set back would hold every call until it caught up again.
   */
  async acquire(cost?: QuotaCost): Promise<Slot> {
    for (let wait = this.#waitFor(performance.now(), cost); wait > 0; wait = this.#waitFor(performance.now(), cost)) {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const slot = new Slot(performance.now(), cost);
    this.#started.push(slot);
    return slot;
  }

  /** How long a call costing `cost` must wait before it fits; 0 when it fits now. */
  #waitFor(now: number, cost: QuotaCost | undefined): number {
    const started = this.#started;
    while (started[0] && started[0].at !== undefined && started[0].at <= now - this.#windowMs) started.shift();
    // The slots in the window, oldest sent first; those not sent yet are counted and leave last.
    const inWindow = started
      .filter((s) => s.at === undefined || s.at > now - this.#windowMs)
      .sort((a, b) => (a.at ?? Number.POSITIVE_INFINITY) - (b.at ?? Number.POSITIVE_INFINITY));
    let until = now;
    const leaves = (slot: Slot | undefined) => (slot?.at ?? now + UNSENT_POLL_MS - this.#windowMs) + this.#windowMs;
    const { callsPerSecond } = this.options;
    if (inWindow.length >= callsPerSecond) until = Math.max(until, leaves(inWindow[inWindow.length - callsPerSecond]));
    const budget = cost && this.options.budgets?.[cost.budget];
    if (cost && budget !== undefined) {
      const same = inWindow.filter((s) => s.cost?.budget === cost.budget);
      let spent = same.reduce((sum, s) => sum + (s.cost?.units ?? 0), 0);
      // The oldest slots of the budget that must leave the window before what is left and this call fit.
      for (const slot of same) {
        if (spent + cost.units <= budget) break;
        spent -= slot.cost?.units ?? 0;
        until = Math.max(until, leaves(slot));
      }
    }
    return until - now;
  }
}

/** How often a call waiting on a slot not yet sent looks again. */
const UNSENT_POLL_MS = 20;

/** One call's place in a pacer's window. */
export class Slot {
  /** When the request last went on the wire; undefined until it does. */
  at: number | undefined;

  constructor(
    readonly acquiredAt: number,
    readonly cost: QuotaCost | undefined,
  ) {}

  sent(): void {
    this.at = performance.now();
  }

  /** The call is over: one that never went on the wire (it failed before) spent nothing and leaves the window. */
  settled(): void {
    this.at ??= Number.NEGATIVE_INFINITY;
  }
}

/** Runs `work` over `items` with at most `limit` in flight. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let cursor = 0;
  const worker = async () => {
    while (cursor < items.length) {
      const index = cursor++;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
