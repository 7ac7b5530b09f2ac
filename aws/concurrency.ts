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
  readonly #started: { at: number; cost?: QuotaCost }[] = [];
  readonly #windowMs: number;

  constructor(private readonly options: QuotaPacerOptions) {
    this.#windowMs = 1000 + (options.marginMs ?? 0);
  }

  /**
   * Resolves when a call costing `cost` fits the window, and counts it as started. Time is the monotonic clock: a
   * wall clock set back would hold every call until it caught up again.
   */
  async acquire(cost?: QuotaCost): Promise<void> {
    for (let wait = this.#waitFor(performance.now(), cost); wait > 0; wait = this.#waitFor(performance.now(), cost)) {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    this.#started.push({ at: performance.now(), ...(cost && { cost }) });
  }

  /** How long a call costing `cost` must wait before it fits; 0 when it fits now. */
  #waitFor(now: number, cost: QuotaCost | undefined): number {
    const started = this.#started;
    while ((started[0]?.at ?? now) <= now - this.#windowMs) started.shift();
    let until = now;
    const { callsPerSecond } = this.options;
    if (started.length >= callsPerSecond) {
      until = Math.max(until, (started[started.length - callsPerSecond]?.at ?? now) + this.#windowMs);
    }
    const budget = cost && this.options.budgets?.[cost.budget];
    if (cost && budget !== undefined) {
      const same = started.filter((s) => s.cost?.budget === cost.budget);
      let spent = same.reduce((sum, s) => sum + (s.cost?.units ?? 0), 0);
      // The oldest starts of the budget that must leave the window before what is left and this call fit.
      for (const entry of same) {
        if (spent + cost.units <= budget) break;
        spent -= entry.cost?.units ?? 0;
        until = Math.max(until, entry.at + this.#windowMs);
      }
    }
    return until - now;
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
