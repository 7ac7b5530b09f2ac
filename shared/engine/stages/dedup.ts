import type { Incident, MuteRecord } from '../incident.ts';
import type { NotificationKind, NotificationReason } from '../notification.ts';
import type { Change } from './correlate.ts';
import type { FleetGroup, GroupingSettings } from './group.ts';
import type { MuteVerdict } from './mute.ts';

/** Why nothing goes out for a fleet incident at this step. */
export type HoldReason =
  /** It closed, but on-call was never shown it (a mute held it back all its life). */
  | 'never-shown'
  /** What fires is held back by a mute. */
  | 'muted'
  /** It is new, and waits `group_wait` for more clusters before its first page. */
  | 'group-wait'
  /** Clusters joined it, and are announced `group_interval` after its last notification. */
  | 'group-interval'
  /** On-call knows everything there is to know, and no reminder is due. */
  | 'nothing-new';

/** What the dedup stage decides for one fleet incident at one step. */
export type Decision =
  | { readonly send: false; readonly why: HoldReason }
  | {
      readonly send: true;
      readonly kind: NotificationKind;
      readonly reason: NotificationReason;
      /** The members the notification is about: listed in it, and marked as shown once it is committed. */
      readonly about: readonly Incident[];
      readonly changes: readonly string[];
    };

export interface DedupInput {
  readonly at: number;
  readonly group: FleetGroup;
  readonly verdicts: ReadonlyMap<string, MuteVerdict>;
  readonly changes: ReadonlyMap<string, Change>;
  readonly settings: Pick<GroupingSettings, 'waitMs' | 'intervalMs'> & { readonly renotifyMs: number };
}

/**
 * Dedup: what on-call has been shown of a fleet incident (its members' `notifiedAt`, the notification log) against
 * what it is now, after Alertmanager's `DedupStage.needsUpdate` (notify/dedup_stage.go): a pure function that says
 * what to send, or why nothing. In order: a closed fleet incident resolves if on-call was shown it; one never shown
 * pages (or files a ticket) after `group_wait`; a ticket that became a page escalates; a new symptom or an identified
 * cause is an update at once; clusters that joined are an update `group_interval` after the last notification; and
 * after `renotify` of silence an open page is a reminder. Clusters that recovered while others still fire ride along
 * in the next update, and every one is named in the resolve.
 */
export function needsUpdate(input: DedupInput): Decision {
  const { group, at } = input;
  const hold = (why: HoldReason): Decision => ({ send: false, why });
  const send = (
    kind: NotificationKind,
    reason: NotificationReason,
    about: readonly Incident[],
    changes: readonly string[],
  ): Decision => ({ send: true, kind, reason, about, changes });

  const shown = group.members.filter((m) => m.notifiedAt !== undefined);
  const lastSent = Math.max(
    Number.NEGATIVE_INFINITY,
    ...shown.flatMap((m) => {
      const sent = m.lastNotifiedAt ?? m.notifiedAt;
      return sent === undefined ? [] : [Date.parse(sent)];
    }),
  );
  if (group.resolved) {
    if (shown.length === 0) return hold('never-shown');
    const [only] = group.members;
    if (group.members.length === 1 && only?.mergedInto !== undefined) {
      return send('resolve', 'merged', shown, input.changes.get(only.id)?.texts ?? []);
    }
    return send('resolve', 'resolved', shown, shown.length > 1 ? [recoveredLine(shown, Number.NEGATIVE_INFINITY)] : []);
  }

  const live = group.members.filter((m) => m.status === 'open' && m.recoveredAt === undefined);
  const visible = live.filter((m) => input.verdicts.get(m.id)?.shown !== false);
  const fresh = visible.filter((m) => m.notifiedAt === undefined);
  const about = [...visible.filter((m) => m.notifiedAt !== undefined), ...fresh];
  const events = about.flatMap((m) => {
    const change = input.changes.get(m.id);
    return change ? [{ incident: m, change }] : [];
  });
  const eventTexts = labelled(
    events.flatMap(({ incident, change }) => change.texts.map((text) => ({ cluster: incident.cluster, text }))),
    about,
  );
  const muteNotes = fresh.flatMap((m) => muteNote(m, input.verdicts.get(m.id)));
  const recovered = shown.some((m) => recoveredAfter(m, lastSent)) ? [recoveredLine(shown, lastSent)] : [];
  const joined = fresh.length > 0 && shown.length > 0 ? [`joined: ${fresh.map((m) => m.cluster).join(', ')}`] : [];

  if (shown.length === 0) {
    if (fresh.length === 0) return hold(live.length > visible.length ? 'muted' : 'nothing-new');
    if (at - Date.parse(group.openedAt) < input.settings.waitMs) return hold('group-wait');
    const kind = fresh.some((m) => m.severity === 'page') ? 'page' : 'ticket';
    return send(kind, firstReason(fresh, input.verdicts, at), fresh, [...eventTexts, ...muteNotes]);
  }
  if (about.some((m) => m.severity === 'page') && !shown.some((m) => m.paged)) {
    return send('page', 'escalated', about, [...eventTexts, ...joined, ...muteNotes, ...recovered]);
  }
  const [first] = events;
  if (first) return send('update', first.change.reason, about, [...eventTexts, ...joined, ...muteNotes, ...recovered]);
  if (fresh.length > 0) {
    if (at - lastSent < input.settings.intervalMs) return hold('group-interval');
    return send('update', joinReason(fresh, input.verdicts), about, [...joined, ...muteNotes, ...recovered]);
  }
  const stillShown = about.filter((m) => m.notifiedAt !== undefined);
  if (stillShown.some((m) => m.severity === 'page') && at - lastSent >= input.settings.renotifyMs) {
    return send('update', 'reminder', stillShown, recovered);
  }
  return hold('nothing-new');
}

/** Why a fleet incident's first notification goes out: it opened, or a mute let it go. */
function firstReason(fresh: readonly Incident[], verdicts: ReadonlyMap<string, MuteVerdict>, at: number) {
  const reasons = fresh.map((m): NotificationReason => {
    const verdict = verdicts.get(m.id);
    if (verdict?.shown && verdict.ended) return 'maintenance-ended';
    if (verdict?.shown && verdict.released && Date.parse(m.openedAt) < at) return 'maintenance-override';
    return 'opened';
  });
  return (
    reasons.find((r) => r === 'opened') ?? reasons.find((r) => r === 'maintenance-override') ?? 'maintenance-ended'
  );
}

/** Why clusters are added to a fleet incident on-call knows: they joined it, or a mute let them go. */
function joinReason(fresh: readonly Incident[], verdicts: ReadonlyMap<string, MuteVerdict>): NotificationReason {
  const released = fresh.flatMap((m) => {
    const verdict = verdicts.get(m.id);
    return verdict?.shown && (verdict.ended ?? verdict.released) ? [verdict] : [];
  });
  if (released.length < fresh.length) return 'joined';
  return released.every((v) => v.ended) ? 'maintenance-ended' : 'maintenance-override';
}

/** What a mute had to do with a member shown for the first time. */
function muteNote(incident: Incident, verdict: MuteVerdict | undefined): string[] {
  if (!verdict?.shown) return [];
  if (verdict.released) {
    const { mute, why } = verdict.released;
    return [
      `${incident.cluster}: paging despite ${muteName(mute)} "${mute.reason}" (${mute.author}, until ${hhmm(mute.until)}): ${why}`,
    ];
  }
  if (verdict.ended)
    return [
      `${incident.cluster}: held back by ${muteName(verdict.ended)} "${verdict.ended.reason}" until ${hhmm(verdict.ended.until)}`,
    ];
  return [];
}

/** A maintenance window is "maintenance"; a silence is named by its id, which `sentinel silence list` shows. */
function muteName(mute: MuteRecord): string {
  return mute.silence === undefined ? 'maintenance' : `silence ${mute.silence}`;
}

function recoveredAfter(incident: Incident, since: number): boolean {
  const at = incident.recoveredAt ?? (incident.status === 'resolved' ? incident.resolvedAt : undefined);
  return at !== undefined && Date.parse(at) > since;
}

/** `recovered: dev-a at 10:41Z, dev-b at 10:45Z`, for the members that recovered after `since`, in that order. */
function recoveredLine(shown: readonly Incident[], since: number): string {
  const recovered = shown
    .filter((m) => recoveredAfter(m, since))
    .map((m) => ({ cluster: m.cluster, at: m.recoveredAt ?? m.resolvedAt ?? '' }))
    .sort((a, b) => a.at.localeCompare(b.at) || a.cluster.localeCompare(b.cluster));
  return `recovered: ${recovered.map((r) => `${r.cluster} at ${hhmm(r.at)}`).join(', ')}`;
}

/** Texts said about some clusters of a notification that lists several say which clusters they are about. */
function labelled(entries: readonly { cluster: string; text: string }[], about: readonly Incident[]): string[] {
  const listed = new Set(about.map((m) => m.cluster));
  const clustersOf = new Map<string, string[]>();
  for (const { cluster, text } of entries) clustersOf.set(text, [...(clustersOf.get(text) ?? []), cluster]);
  return [...clustersOf].map(([text, clusters]) =>
    listed.size <= 1 || clusters.length === listed.size ? text : `${text} (${clusters.join(', ')})`,
  );
}

function hhmm(iso: string): string {
  return `${iso.slice(11, 16)}Z`;
}
