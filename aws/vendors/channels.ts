import { setTimeout as sleep } from 'node:timers/promises';
import { describeSecretReference, type VendorSubscriber } from '../../shared/config/deployment-config.ts';
import type { IncidentChannel, KeyUsed } from '../../shared/delivery/deliver.ts';
import { keySecretOf, type PagingIntegration } from '../../shared/delivery/paging-integrations.ts';
import {
  incidentKey,
  opsgenieAlert,
  opsgenieClose,
  opsgenieNote,
  type PagerDutyAction,
  pagerDutyEvent,
} from '../../shared/delivery/vendor-messages.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { SentinelError } from '../../shared/errors.ts';
import {
  type RetryPolicy,
  sendJson,
  VENDOR_RETRY,
  type VendorAnswer,
  VendorRejectedError,
  type VendorRequest,
  VendorUnavailableError,
} from './http.ts';
import { keyFingerprint, SecretShapeError, type SecretValues } from './secret-values.ts';

/** What this module sends: HTTPS to the vendors and to webhooks only; their keys and URLs come through SecretValues. */
export const IAM_ACTIONS = [] as const;

/**
 * The vendors' endpoints by region: PagerDuty's Events API v2 (https://developer.pagerduty.com/docs/events-API-v2/overview/,
 * EU service region: events.eu.pagerduty.com) and Opsgenie's Alert API (https://docs.opsgenie.com/docs/alert-api,
 * EU instance: api.eu.opsgenie.com).
 */
export const VENDOR_ENDPOINTS = {
  pagerduty: { us: 'https://events.pagerduty.com', eu: 'https://events.eu.pagerduty.com' },
  opsgenie: { us: 'https://api.opsgenie.com', eu: 'https://api.eu.opsgenie.com' },
  /**
   * Jira Service Management's integration events API, which took over Opsgenie's Alert API (create, note, close by
   * alias, request status) under /jsm/ops/integration on the Atlassian API host
   * (https://developer.atlassian.com/cloud/jira/service-desk-ops/rest/v1/api-group-integration-events/). That
   * reference names api.atlassian.com only; the EU host has no primary source: api.eu.atlassian.com is what
   * integrations for EU sites use (as Opsgenie's EU accounts use api.eu.opsgenie.com), not an Atlassian page.
   */
  jsm: { us: 'https://api.atlassian.com/jsm/ops/integration', eu: 'https://api.eu.atlassian.com/jsm/ops/integration' },
} as const;

const VENDOR_NAMES = { pagerduty: 'PagerDuty', opsgenie: 'Opsgenie', jsm: 'Jira Service Management' } as const;

/**
 * How long to wait before each read of an Opsgenie request's status: Opsgenie answers 202 and processes the request
 * asynchronously, and its status is "not found" until it is processed (Get Request Status,
 * https://docs.opsgenie.com/docs/alert-api#get-request-status). About 7 s in all, so that an open and a close of one
 * notification stay within the delivery function's 60 s timeout with their retries.
 */
export const REQUEST_STATUS_WAITS_MS: readonly number[] = [250, 500, 1000, 1000, 2000, 2000];

/** Opsgenie or JSM processed the request and failed it (a note or a close of an alert that does not exist, ...). */
export class VendorRequestFailedError extends SentinelError {}

export interface ChannelOptions {
  readonly secrets: SecretValues;
  /** Endpoints by protocol, to reach the vendors through a proxy or, in tests, loopback fakes. */
  readonly endpoints?: Partial<Record<VendorSubscriber['protocol'], string>>;
  readonly retry?: RetryPolicy;
  /** How long to wait before each read of an asynchronous request's status (REQUEST_STATUS_WAITS_MS). */
  readonly statusWaitsMs?: readonly number[];
}

/**
 * The IncidentChannel of an integration: its vendor's API, with its key read from its secret per call. An open
 * says which key it used; an update or a close uses the key the incident was opened with, the one before the last
 * rotation when that is it, so that a rotation never leaves an incident open on the old service. A webhook's channel
 * posts the notification to the URL its secret holds, read the same way: a rotated URL is a secret update.
 */
export function channelFor(integration: PagingIntegration, options: ChannelOptions): IncidentChannel {
  const { subscriber } = integration;
  const reference = keySecretOf(subscriber);
  const retry = options.retry ?? VENDOR_RETRY;

  /** The key to send with: the one the incident was opened with, when it is still the current or the previous one. */
  const keyFor = async (openedWith: KeyUsed): Promise<string> => {
    const current = await options.secrets.value(reference);
    if (openedWith === undefined || keyFingerprint(current) === openedWith) return current;
    const previous = await options.secrets.previous(reference);
    return previous !== undefined && keyFingerprint(previous) === openedWith ? previous : current;
  };

  /**
   * Send with the key; a vendor that refuses it gets one more try with a fresh read of the current key: after a
   * rotation, or when the key an incident was opened with no longer exists at the vendor.
   */
  const send = async (
    build: (key: string) => VendorRequest,
    openedWith: KeyUsed = undefined,
  ): Promise<{ answer: VendorAnswer; key: string }> => {
    const key = await keyFor(openedWith);
    try {
      return { answer: await sendJson(build(key), retry), key };
    } catch (error) {
      if (!(error instanceof VendorRejectedError)) throw error;
      const fresh = await options.secrets.value(reference, true);
      if (fresh === key) throw error;
      return { answer: await sendJson(build(fresh), retry), key: fresh };
    }
  };

  if (subscriber.protocol === 'https') {
    /** The notification JSON (the body an SQS subscriber gets), posted to the URL the secret holds now. */
    const post = async (notification: Notification, what: string): Promise<void> => {
      await send((url) => {
        // A URL that does not parse would be quoted whole by fetch's error, and the log would hold it.
        if (!URL.canParse(url)) throw new SecretShapeError(`${describeSecretReference(reference)} does not hold a URL`);
        return {
          url,
          headers: {},
          body: notification,
          describe: `webhook ${what} of ${incidentKey(notification)} (${integration.id})`,
        };
      });
    };
    return {
      // Nothing to remember: an update or a resolve goes to the URL the secret holds when it is sent.
      open: async (notification) => {
        await post(notification, notification.kind);
        return undefined;
      },
      update: (notification) => post(notification, 'update'),
      close: (notification) => post(notification, 'resolve'),
    };
  }

  const base = options.endpoints?.[subscriber.protocol] ?? VENDOR_ENDPOINTS[subscriber.protocol][subscriber.region];
  if (subscriber.protocol === 'pagerduty') {
    const event = (notification: Notification, action: PagerDutyAction, openedWith?: KeyUsed) =>
      send(
        (key) => ({
          url: `${base}/v2/enqueue`,
          headers: {},
          body: { routing_key: key, ...pagerDutyEvent(notification, action) },
          describe: `PagerDuty ${action} of ${incidentKey(notification)} (${integration.id})`,
        }),
        openedWith,
      );
    return {
      open: async (notification) => keyFingerprint((await event(notification, 'trigger')).key),
      update: async (notification, openedWith) => {
        await event(notification, 'trigger', openedWith);
      },
      close: async (notification, openedWith) => {
        await event(notification, 'resolve', openedWith);
      },
    };
  }

  const alerts = `${base}/v2/alerts`;
  const byAlias = (notification: Notification, action: string) =>
    `${alerts}/${encodeURIComponent(incidentKey(notification))}/${action}?identifierType=alias`;
  /**
   * One Alert API request (Opsgenie's, or JSM's, which took it over), followed to its outcome: delivered only once the
   * tool processed it successfully.
   */
  const call = async (
    notification: Notification,
    what: string,
    url: string,
    body: unknown,
    openedWith?: KeyUsed,
  ): Promise<string> => {
    const describe = `${VENDOR_NAMES[subscriber.protocol]} ${what} of ${incidentKey(notification)} (${integration.id})`;
    const { answer, key } = await send(
      (apiKey) => ({ url, headers: { authorization: `GenieKey ${apiKey}` }, body, describe }),
      openedWith,
    );
    const requestId = (JSON.parse(answer.body || '{}') as { requestId?: unknown }).requestId;
    if (typeof requestId !== 'string') throw new VendorUnavailableError(`${describe}: no requestId in the answer`);
    await followRequest(`${alerts}/requests/${encodeURIComponent(requestId)}`, key, describe);
    return key;
  };

  /** Read the request's status until Opsgenie processed it; throw when it failed it or never got to it. */
  const followRequest = async (url: string, key: string, describe: string): Promise<void> => {
    for (const wait of options.statusWaitsMs ?? REQUEST_STATUS_WAITS_MS) {
      await sleep(wait);
      let answer: VendorAnswer;
      try {
        answer = await sendJson({ method: 'GET', url, headers: { authorization: `GenieKey ${key}` }, describe }, retry);
      } catch (error) {
        if (error instanceof VendorRejectedError && error.status === 404) continue;
        throw error;
      }
      const data = (JSON.parse(answer.body || '{}') as { data?: { isSuccess?: unknown; status?: unknown } }).data;
      if (data?.isSuccess === true) return;
      throw new VendorRequestFailedError(
        `${describe}: Opsgenie failed the request: ${String(data?.status ?? 'no status')}`,
      );
    }
    throw new VendorUnavailableError(
      `${describe}: the request was not processed after its status was read ${(options.statusWaitsMs ?? REQUEST_STATUS_WAITS_MS).length} times`,
    );
  };

  return {
    open: async (notification) =>
      keyFingerprint(await call(notification, 'create', alerts, opsgenieAlert(notification))),
    update: async (notification, openedWith) => {
      await call(notification, 'note', byAlias(notification, 'notes'), opsgenieNote(notification), openedWith);
    },
    close: async (notification, openedWith) => {
      await call(notification, 'close', byAlias(notification, 'close'), opsgenieClose(notification), openedWith);
    },
  };
}
