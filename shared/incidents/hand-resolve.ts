import { composeNotification } from '../engine/compose-notification.ts';
import type { HandResolution } from '../engine/hand-resolution.ts';
import type { Notification } from '../engine/notification.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import { SentinelError } from '../errors.ts';
import type { FleetIncident } from './fleet-incidents.ts';

/** A hand resolve that cannot be given: no such open incident, or no reason. */
export class HandResolveError extends SentinelError {}

/**
 * The hand resolution of an open fleet incident: the members open now, who resolves them and why. Throws
 * HandResolveError when nothing of it is open or the reason is blank.
 */
export function handResolution(incident: FleetIncident, at: string, author: string, reason: string): HandResolution {
  const open = incident.members.filter((m) => m.status === 'open');
  if (open.length === 0) throw new HandResolveError(`incident ${incident.id} is resolved already`);
  if (reason.trim() === '') throw new HandResolveError('--reason needs a reason, for whoever reads the incident later');
  return { group: incident.id, incidents: open.map((m) => m.id), at, author, reason: reason.trim() };
}

/**
 * What resolving a fleet incident by hand sends: a resolve about every member on-call was shown, so that it goes
 * where its page went (the same topic by severity, the same integrations by cluster) under the same fleet incident,
 * which paging tools key their incident on. Its id depends on the resolution only, so that resolving again enqueues
 * the same notification, which the outbox keeps once. Undefined when on-call was never shown the incident.
 */
export function handResolveNotification(
  incident: FleetIncident,
  resolution: HandResolution,
  ruleSet: RuleSet,
  runbookBaseUrl: string,
): Notification | undefined {
  const covered = new Set(resolution.incidents);
  const shown = incident.members.filter((m) => covered.has(m.id) && m.notifiedAt !== undefined);
  if (shown.length === 0) return undefined;
  return composeNotification({
    at: resolution.at,
    kind: 'resolve',
    reason: 'resolved-by-hand',
    rule: incident.rule,
    about: shown,
    group: incident.id,
    changes: [`resolved by hand by ${resolution.author}: ${resolution.reason}`],
    ruleSet,
    runbookBaseUrl,
    factsOf: () => undefined,
  });
}
