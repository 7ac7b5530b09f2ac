import { type QuotaCost, QuotaPacer, type QuotaPacerOptions } from './concurrency.ts';

/** A pacer's window is a second and this much: what a call's arrival at the service may lag its start by. */
export const PACING_MARGIN_MS = 150;

/**
 * What pacing needs of an SDK command, whichever the service: its middleware stack, to mark the call's slot sent as
 * each attempt goes on the wire, and the handler it resolves to, which names its output.
 */
interface PacedCommand {
  readonly middlewareStack: {
    add(
      middleware: (next: (args: never) => Promise<unknown>) => (args: never) => Promise<unknown>,
      options: { readonly step: 'deserialize'; readonly name: string },
    ): void;
  };
  resolveMiddleware(...args: never[]): unknown;
}

/** The output of an SDK command, read from the handler it resolves to. */
type OutputOf<Command> = Command extends {
  resolveMiddleware(...args: never[]): (args: never) => Promise<{ output: infer Output }>;
}
  ? Output
  : never;

/**
 * Sends `command` once `pacer` has room for it (and for `cost`, when the call spends another per-second budget too).
 * Its slot is marked sent in the innermost step, right before each attempt goes on the wire: where the service starts
 * counting it.
 */
export async function sendPaced<Command extends PacedCommand>(
  client: { send(command: NoInfer<Command>): Promise<OutputOf<Command>> },
  pacer: QuotaPacer,
  command: Command,
  cost?: QuotaCost,
): Promise<OutputOf<Command>> {
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
 * The pacers of one reader's calls of one operation (or of the operations that share a rate), one a Region: an SDK
 * client is a Region (aws/clients.ts, aws/eks/node-facts.ts), and its pacer is shared by every read of that reader
 * through it, so that concurrent reads share the Region's quota.
 */
export class RegionPacers<Client extends object = object> {
  readonly #pacers = new Map<Client, QuotaPacer>();

  constructor(private readonly options: Omit<QuotaPacerOptions, 'marginMs'>) {}

  pacerFor(client: Client): QuotaPacer {
    let pacer = this.#pacers.get(client);
    if (!pacer) {
      pacer = new QuotaPacer({ ...this.options, marginMs: PACING_MARGIN_MS });
      this.#pacers.set(client, pacer);
    }
    return pacer;
  }
}
