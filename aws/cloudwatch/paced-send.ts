import type {
  $Command,
  CloudWatchClient,
  CloudWatchClientResolvedConfig,
  ServiceInputTypes,
  ServiceOutputTypes,
} from '@aws-sdk/client-cloudwatch';
import { type QuotaCost, QuotaPacer, type QuotaPacerOptions } from '../concurrency.ts';

/** A pacer's window is a second and this much: what a call's arrival at CloudWatch may lag its start by. */
export const PACING_MARGIN_MS = 150;

/**
 * Sends `command` once `pacer` has room for it (and for `cost`, when the call spends another per-second budget too).
 * Its slot is marked sent in the innermost step, right before each attempt goes on the wire: where CloudWatch starts
 * counting it.
 */
export async function sendPaced<Input extends ServiceInputTypes, Output extends ServiceOutputTypes>(
  client: CloudWatchClient,
  pacer: QuotaPacer,
  command: $Command<Input, Output, CloudWatchClientResolvedConfig, ServiceInputTypes, ServiceOutputTypes>,
  cost?: QuotaCost,
): Promise<Output> {
  const slot = await pacer.acquire(cost);
  command.middlewareStack.add(
    (next) => (args) => {
      slot.sent();
      return next(args);
    },
    { step: 'deserialize', name: 'quotaSlotSent' },
  );
  return client.send(command).finally(() => slot.settled());
}

/**
 * The pacers of one reader's calls of one operation, one a Region: a client is a Region (aws/clients.ts), and its
 * pacer is shared by every read of that reader through it, so that concurrent reads share the Region's quota.
 */
export class RegionPacers {
  readonly #pacers = new Map<CloudWatchClient, QuotaPacer>();

  constructor(private readonly options: Omit<QuotaPacerOptions, 'marginMs'>) {}

  pacerFor(client: CloudWatchClient): QuotaPacer {
    let pacer = this.#pacers.get(client);
    if (!pacer) {
      pacer = new QuotaPacer({ ...this.options, marginMs: PACING_MARGIN_MS });
      this.#pacers.set(client, pacer);
    }
    return pacer;
  }
}
