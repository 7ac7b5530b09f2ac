import type { Notification } from '../engine/notification.ts';
import { SentinelError } from '../errors.ts';
import { integrationsFor, type PagingIntegration } from './paging-integrations.ts';
import { incidentKey } from './vendor-messages.ts';

/**
 * Which key a call to a paging tool was sent with: a fingerprint of it (never the key), or undefined for a tool
 * without one. An incident remembers the key it was opened with, so that its updates and its close reach the same
 * service after the key was rotated: PagerDuty drops a resolve sent with another routing key.
 */
export type KeyUsed = string | undefined;

/**
 * One paging tool's view of an incident, keyed by `incidentKey`: PagerDuty's Events API (trigger, trigger, resolve
 * under one `dedup_key`) or Opsgenie's Alert API (create, note, close under one `alias`). Each call retries the
 * vendor's throttling and server errors itself, follows an asynchronous request to its outcome, and throws once it
 * gives up or the tool failed the request.
 */
export interface IncidentChannel {
  /** Opens the incident: a PagerDuty trigger, an Opsgenie create; says which key it was sent with. */
  open(notification: Notification): Promise<KeyUsed>;
  /** Adds to the open incident, with the key it was opened with: a PagerDuty trigger with the same key, an Opsgenie note. */
  update(notification: Notification, openedWith: KeyUsed): Promise<void>;
  /** Closes it, with the key it was opened with: a PagerDuty resolve, an Opsgenie close. */
  close(notification: Notification, openedWith: KeyUsed): Promise<void>;
}

export type ClaimOutcome = 'claimed' | 'delivered' | 'busy';

/** What a paging tool was told about an incident, as far as this deployment knows. */
export interface IncidentDeliveryState {
  /** An open (trigger, create) went out. */
  readonly opened: boolean;
  /** A resolve is under way or done: nothing may open the incident again. */
  readonly closing: boolean;
  /** The key the incident was opened with; absent on records written before keys were remembered. */
  readonly openedWith?: string;
}

/**
 * Who delivered what (the DynamoDB table in the Lambda): one record per notification and integration, so an SQS
 * redelivery never adds a second note; and one per incident and integration, so a resolve and a late trigger
 * cannot leave an incident open.
 */
export interface DeliveryLedger {
  /** Claim a notification's delivery to an integration for `leaseMs`; `delivered` once it went out, `busy` while held. */
  claim(integration: string, notification: string, now: number, leaseMs: number): Promise<ClaimOutcome>;
  markDelivered(integration: string, notification: string, outcome: DeliveryOutcome, now: number): Promise<void>;
  /**
   * Give up a claim after a failed delivery, so that SQS's redelivery of the message can claim it at once; records why
   * it failed, for `sentinel test-page` and for whoever reads the dead-letter queue.
   */
  release(integration: string, notification: string, reason: string): Promise<void>;
  incident(integration: string, key: string): Promise<IncidentDeliveryState>;
  /** Records the first open, and the key it went out with. */
  markOpened(integration: string, key: string, now: number, openedWith: KeyUsed): Promise<void>;
  markClosing(integration: string, key: string, now: number): Promise<void>;
}

/**
 * What a delivery did: `opened`, `updated` or `closed` the incident; `stale`, a trigger or update that arrived
 * after its incident's resolve and was dropped so as not to reopen it; `unopened`, a resolve of an incident the tool
 * never heard of, sent as nothing (a trigger now would page someone for an incident already over); `duplicate`, a
 * redelivery of one already sent.
 */
export type DeliveryOutcome = 'opened' | 'updated' | 'closed' | 'stale' | 'unopened';

/** Another invocation holds the delivery (SQS handed the message to two at once); SQS redelivers it later. */
export class DeliveryBusyError extends SentinelError {}

/** Some integrations could not be reached after their retries; those that were are recorded and not sent again. */
export class DeliveryFailedError extends SentinelError {}

export interface DeliveryDeps {
  readonly integrations: readonly PagingIntegration[];
  readonly channelFor: (integration: PagingIntegration) => IncidentChannel;
  readonly ledger: DeliveryLedger;
  readonly now: () => number;
  /** How long a claim holds off another invocation: longer than one delivery takes, shorter than SQS's visibility. */
  readonly leaseMs: number;
}

export interface IntegrationDelivery {
  readonly integration: string;
  readonly outcome: DeliveryOutcome | 'duplicate';
}

/**
 * Deliver one notification of the paging topic to every PagingIntegration it concerns (all of them when it was cut to
 * fit SNS and `clustersOmitted`). Each integration is claimed,
 * sent and recorded on its own, so a retry after one vendor failed sends only to that one. Throws
 * DeliveryFailedError (the SQS record fails and is redelivered) when any integration failed.
 */
export async function deliverNotification(
  notification: Notification,
  deps: DeliveryDeps,
  clustersOmitted = false,
): Promise<IntegrationDelivery[]> {
  const targets = integrationsFor(notification, deps.integrations, clustersOmitted);
  const settled = await Promise.allSettled(
    targets.map(async (integration) => ({
      integration: integration.id,
      outcome: await deliverTo(notification, integration.id, deps.channelFor(integration), deps),
    })),
  );
  const failed = settled.flatMap((result, index) =>
    result.status === 'rejected' ? [{ integration: targets[index]?.id ?? '', error: result.reason as Error }] : [],
  );
  if (failed.length > 0) {
    const said = failed.map(({ integration, error }) => `${integration}: ${error.message}`).join('; ');
    throw new DeliveryFailedError(`notification ${notification.id} not delivered to ${said}`, {
      cause: failed[0]?.error,
    });
  }
  return settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
}

/**
 * One notification to one integration, in incident order whatever order SQS hands them over in:
 * - a resolve marks the incident closing before it calls the tool, then closes it with the key it was opened with; a
 *   resolve of an incident no open ever went out for sends nothing (`unopened`);
 * - a page or an update of an incident already closing is stale and dropped: it would reopen a resolved incident;
 * - otherwise the first to go out opens the incident and later ones update it with the key it was opened with; once
 *   sent, it re-reads the incident's state and closes it again if a resolve ran meanwhile, since the resolve could
 *   have found no open recorded yet.
 */
async function deliverTo(
  notification: Notification,
  integration: string,
  channel: IncidentChannel,
  deps: DeliveryDeps,
): Promise<DeliveryOutcome | 'duplicate'> {
  const { ledger, now } = deps;
  const claim = await ledger.claim(integration, notification.id, now(), deps.leaseMs);
  if (claim === 'delivered') return 'duplicate';
  if (claim === 'busy') {
    throw new DeliveryBusyError(`notification ${notification.id} is being delivered to ${integration} by another run`);
  }
  try {
    const outcome = await sendInOrder(notification, integration, channel, deps);
    await ledger.markDelivered(integration, notification.id, outcome, now());
    return outcome;
  } catch (error) {
    // The delivery's own error is what counts; a release that fails only holds the retry off until the lease ends.
    await ledger.release(integration, notification.id, (error as Error).message).catch(() => undefined);
    throw error;
  }
}

async function sendInOrder(
  notification: Notification,
  integration: string,
  channel: IncidentChannel,
  { ledger, now }: DeliveryDeps,
): Promise<DeliveryOutcome> {
  const key = incidentKey(notification);
  const state = await ledger.incident(integration, key);
  if (notification.kind === 'resolve') {
    await ledger.markClosing(integration, key, now());
    if (!state.opened) return 'unopened';
    await channel.close(notification, state.openedWith);
    return 'closed';
  }
  if (state.closing) return 'stale';
  if (state.opened) await channel.update(notification, state.openedWith);
  else await ledger.markOpened(integration, key, now(), await channel.open(notification));
  const after = await ledger.incident(integration, key);
  if (after.closing) await channel.close(notification, after.openedWith);
  return state.opened ? 'updated' : 'opened';
}
