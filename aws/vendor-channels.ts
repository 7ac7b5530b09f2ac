import type { VendorSubscriber } from '../shared/config/deployment-config.ts';
import type { IncidentChannel } from '../shared/delivery/deliver.ts';
import type { PagingIntegration } from '../shared/delivery/paging-integrations.ts';
import {
  incidentKey,
  opsgenieAlert,
  opsgenieClose,
  opsgenieNote,
  type PagerDutyAction,
  pagerDutyEvent,
} from '../shared/delivery/vendor-messages.ts';
import type { Notification } from '../shared/engine/notification.ts';
import type { SecretValues } from './secret-values.ts';
import { postJson, type RetryPolicy, VENDOR_RETRY, VendorRejectedError, type VendorRequest } from './vendor-http.ts';

/** What this module sends: HTTPS to the vendors only; the keys come through SecretValues. */
export const IAM_ACTIONS = [] as const;

/**
 * The vendors' endpoints by region: PagerDuty's Events API v2 (https://developer.pagerduty.com/docs/events-API-v2/overview/,
 * EU service region: events.eu.pagerduty.com) and Opsgenie's Alert API (https://docs.opsgenie.com/docs/alert-api,
 * EU instance: api.eu.opsgenie.com).
 */
export const VENDOR_ENDPOINTS = {
  pagerduty: { us: 'https://events.pagerduty.com', eu: 'https://events.eu.pagerduty.com' },
  opsgenie: { us: 'https://api.opsgenie.com', eu: 'https://api.eu.opsgenie.com' },
} as const;

export interface ChannelOptions {
  readonly secrets: SecretValues;
  /** Endpoints by protocol, to reach the vendors through a proxy or, in tests, loopback fakes. */
  readonly endpoints?: Partial<Record<VendorSubscriber['protocol'], string>>;
  readonly retry?: RetryPolicy;
}

/** The IncidentChannel of an integration: its vendor's API, with its key read from Secrets Manager per call. */
export function channelFor(integration: PagingIntegration, options: ChannelOptions): IncidentChannel {
  const { subscriber } = integration;
  const base = options.endpoints?.[subscriber.protocol] ?? VENDOR_ENDPOINTS[subscriber.protocol][subscriber.region];
  const reference = subscriber.protocol === 'pagerduty' ? subscriber.routingKeySecret : subscriber.apiKeySecret;
  /** Send with the cached key; a vendor that refuses it gets one more try with a fresh read, after a rotation. */
  const send = async (build: (key: string) => VendorRequest): Promise<void> => {
    const key = await options.secrets.value(reference);
    try {
      await postJson(build(key), options.retry ?? VENDOR_RETRY);
    } catch (error) {
      if (!(error instanceof VendorRejectedError)) throw error;
      const fresh = await options.secrets.value(reference, true);
      if (fresh === key) throw error;
      await postJson(build(fresh), options.retry ?? VENDOR_RETRY);
    }
  };
  if (subscriber.protocol === 'pagerduty') {
    const event = (notification: Notification, action: PagerDutyAction) =>
      send((key) => ({
        url: `${base}/v2/enqueue`,
        headers: {},
        body: { routing_key: key, ...pagerDutyEvent(notification, action) },
        describe: `PagerDuty ${action} of ${incidentKey(notification)} (${integration.id})`,
      }));
    return {
      open: (notification) => event(notification, 'trigger'),
      update: (notification) => event(notification, 'trigger'),
      close: (notification) => event(notification, 'resolve'),
    };
  }
  const alerts = `${base}/v2/alerts`;
  const byAlias = (notification: Notification, action: string) =>
    `${alerts}/${encodeURIComponent(incidentKey(notification))}/${action}?identifierType=alias`;
  const call = (notification: Notification, what: string, url: string, body: unknown) =>
    send((key) => ({
      url,
      headers: { authorization: `GenieKey ${key}` },
      body,
      describe: `Opsgenie ${what} of ${incidentKey(notification)} (${integration.id})`,
    }));
  return {
    open: (notification) => call(notification, 'create', alerts, opsgenieAlert(notification)),
    update: (notification) => call(notification, 'note', byAlias(notification, 'notes'), opsgenieNote(notification)),
    close: (notification) => call(notification, 'close', byAlias(notification, 'close'), opsgenieClose(notification)),
  };
}
