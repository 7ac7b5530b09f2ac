import type { Notification } from '../../shared/engine/notification.ts';
import { SeriesWindow } from '../../shared/engine/signal-window.ts';
import { type StepInput, step } from '../../shared/engine/step.ts';
import {
  type EngineRunOptions,
  engineSettings,
  expandSignals,
  flagRule,
  minuteIso,
  minuteMs,
  only,
  ruleSetOf,
  runEngine,
} from '../support/engine-fixtures.ts';

/** What a notification says, without the parts that only restate it. */
const said = (n: Notification) => `${n.at} ${n.kind} ${n.reason} ${n.rule}`;

/** `cause` explains `symptom`; each fires while its own signal is at least 1. */
const cause = (fields: Record<string, unknown> = {}) =>
  flagRule('cause', 'webhook.p99', { explains: ['symptom'], ...fields });
const symptom = (fields: Record<string, unknown> = {}) => flagRule('symptom', 'nodes.replaced', fields);

describe('step', () => {
  describe('opening and resolving', () => {
    it('opens an incident and pages once while the rule keeps firing', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99')],
        clusters: { 'dev-a': { 'webhook.p99': '0*2 1*10' } },
      });

      expect(run.notifications.map(said)).toEqual([`${minuteIso(2)} page opened outage`]);
    });

    it('writes an open incident at the steps that change it, and once a day while nothing does', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99')],
        clusters: { 'dev-a': { 'webhook.p99': `0 1*${1 + 24 * 60}` } },
      });

      // Opened and paged at step 1; then the same, minute after minute, for a day, reminded every 4 hours.
      const writes = run.outputs.map((output) => output.changed.length);
      const quiet = run.outputs.slice(2).filter((output) => output.notifications.length === 0);
      expect(writes.slice(0, 2)).toEqual([0, 1]);
      expect(quiet.map((output) => output.changed.length).filter((n) => n > 0)).toEqual([1]);
    });

    it('opens a ticket for a ticket-severity rule', () => {
      const run = runEngine({
        rules: [flagRule('tax', 'webhook.p99', { severity: 'ticket' })],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*3' } },
      });

      expect(run.notifications.map((n) => [n.kind, n.severity])).toEqual([['ticket', 'warning']]);
    });

    it('records the open incident with its root rule and the time it opened', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99')],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*3' } },
      });

      expect(run.incidents.map((i) => [i.id, i.status, i.rule, i.openedAt, i.paged])).toEqual([
        [`dev-a/outage/${minuteIso(1)}`, 'open', 'outage', minuteIso(1), true],
      ]);
    });

    it('keeps a flap within the hold-down in one incident and counts it', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { holdDown: '15m' })],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*3 0*3 1*3 0*3' } },
      });

      expect([run.notifications.map((n) => n.kind), run.incidents.map((i) => i.flaps)]).toEqual([['page'], [1]]);
    });

    it('resolves after the hold-down of clear samples and sends a resolve', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { holdDown: '5m' })],
        clusters: { 'dev-a': { 'webhook.p99': '1*3 0*10' } },
      });

      expect(run.notifications.map(said)).toEqual([
        `${minuteIso(0)} page opened outage`,
        `${minuteIso(8)} resolve resolved outage`,
      ]);
    });

    it('marks the incident resolved at the end of the hold-down', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { holdDown: '5m' })],
        clusters: { 'dev-a': { 'webhook.p99': '1*3 0*10' } },
      });

      expect(run.incidents.map((i) => [i.status, i.resolvedAt, i.clearSince])).toEqual([
        ['resolved', minuteIso(8), minuteIso(3)],
      ]);
    });

    it('stays open while the hold-down has not passed', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { holdDown: '5m' })],
        clusters: { 'dev-a': { 'webhook.p99': '1*3 0*5' } },
      });

      expect([run.notifications.map((n) => n.kind), run.outputs.at(-1)?.open.length]).toEqual([['page'], 1]);
    });

    it('never resolves while data is missing', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { holdDown: '5m' })],
        clusters: { 'dev-a': { 'webhook.p99': '1*3 _*30' } },
      });

      expect([run.notifications.map((n) => n.kind), run.incidents.map((i) => i.status)]).toEqual([['page'], ['open']]);
    });

    it('restarts the hold-down when data goes missing in the middle of it', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { holdDown: '5m' })],
        clusters: { 'dev-a': { 'webhook.p99': '1*3 0*3 _*2 0*10' } },
      });

      expect(run.notifications.filter((n) => n.kind === 'resolve').map((n) => n.at)).toEqual([minuteIso(13)]);
    });

    it('opens a new incident when the rule fires again after a resolve', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { holdDown: '2m' })],
        clusters: { 'dev-a': { 'webhook.p99': '1 0*3 1' } },
      });

      expect(run.notifications.map(said)).toEqual([
        `${minuteIso(0)} page opened outage`,
        `${minuteIso(3)} resolve resolved outage`,
        `${minuteIso(4)} page opened outage`,
      ]);
    });
  });

  describe('correlation', () => {
    it('attaches a page-level symptom of an open root as an update, without a second page', () => {
      const run = runEngine({
        rules: [cause(), symptom()],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*9', 'nodes.replaced': '0*5 1*5' } },
      });

      expect(run.notifications.map(said)).toEqual([
        `${minuteIso(1)} page opened cause`,
        `${minuteIso(5)} update new-symptom cause`,
      ]);
    });

    it('lists the new symptom and its causal path in the update', () => {
      const run = runEngine({
        rules: [cause(), symptom()],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*9', 'nodes.replaced': '0*5 1*5' } },
      });
      const update = only(run.notifications.filter((n) => n.kind === 'update'));

      expect([update.symptoms, update.changes, update.causalChain]).toEqual([
        ['symptom'],
        ['new symptom: symptom'],
        [['cause', 'symptom']],
      ]);
    });

    it('attaches a ticket-level symptom of an open root silently', () => {
      const run = runEngine({
        rules: [cause(), symptom({ severity: 'ticket' })],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*9', 'nodes.replaced': '0*5 1*5' } },
      });

      expect([run.notifications.map(said), run.incidents.map((i) => i.symptoms)]).toEqual([
        [`${minuteIso(1)} page opened cause`],
        [['symptom']],
      ]);
    });

    it('escalates a ticket to a page when a page-level symptom attaches to it', () => {
      const run = runEngine({
        rules: [cause({ severity: 'ticket' }), symptom()],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*9', 'nodes.replaced': '0*5 1*5' } },
      });

      expect(run.notifications.map(said)).toEqual([
        `${minuteIso(1)} ticket opened cause`,
        `${minuteIso(5)} page escalated cause`,
      ]);
    });

    it('re-roots a symptom incident on a cause that fires within 30 minutes, without a second page', () => {
      const run = runEngine({
        rules: [cause(), symptom()],
        clusters: { 'dev-a': { 'webhook.p99': '0*10 1*5', 'nodes.replaced': '0*2 1*13' } },
      });

      expect(run.notifications.map(said)).toEqual([
        `${minuteIso(2)} page opened symptom`,
        `${minuteIso(10)} update cause-identified cause`,
      ]);
    });

    it('absorbs every young incident a late cause explains, closing the others as merged', () => {
      const run = runEngine({
        rules: [
          flagRule('cause', 'webhook.p99', { explains: ['first', 'second'] }),
          flagRule('first', 'nodes.replaced'),
          flagRule('second', 'apiserver.5xx'),
        ],
        clusters: {
          'dev-a': { 'webhook.p99': '0*10 1*5', 'nodes.replaced': '0*2 1*13', 'apiserver.5xx': '0*4 1*11' },
        },
      });

      expect([run.notifications.map(said), run.incidents.map((i) => [i.rule, i.status, i.mergedInto])]).toEqual([
        [
          `${minuteIso(2)} page opened first`,
          `${minuteIso(4)} page opened second`,
          `${minuteIso(10)} update cause-identified cause`,
          `${minuteIso(10)} resolve merged second`,
        ],
        [
          ['cause', 'open', undefined],
          ['second', 'resolved', `dev-a/first/${minuteIso(2)}`],
        ],
      ]);
    });

    it('keeps the identity of a re-rooted incident and makes its old root a symptom', () => {
      const run = runEngine({
        rules: [cause(), symptom()],
        clusters: { 'dev-a': { 'webhook.p99': '0*10 1*5', 'nodes.replaced': '0*2 1*13' } },
      });

      expect(run.incidents.map((i) => [i.id, i.rule, i.symptoms])).toEqual([
        [`dev-a/symptom/${minuteIso(2)}`, 'cause', ['symptom']],
      ]);
    });

    it('says which cause replaced which root', () => {
      const run = runEngine({
        rules: [cause(), symptom()],
        clusters: { 'dev-a': { 'webhook.p99': '0*10 1*5', 'nodes.replaced': '0*2 1*13' } },
      });

      expect(only(run.notifications.filter((n) => n.kind === 'update')).changes).toEqual([
        'cause identified: cause (was symptom)',
      ]);
    });

    it('opens a separate incident for a cause that fires more than 30 minutes after its symptom', () => {
      const run = runEngine({
        rules: [cause(), symptom()],
        clusters: { 'dev-a': { 'webhook.p99': '0*40 1*3', 'nodes.replaced': '0*2 1*41' } },
      });

      expect(run.notifications.map(said)).toEqual([
        `${minuteIso(2)} page opened symptom`,
        `${minuteIso(40)} page opened cause`,
      ]);
    });

    it('does not correlate rules that no causal link joins', () => {
      const run = runEngine({
        rules: [flagRule('first', 'webhook.p99'), flagRule('second', 'nodes.replaced')],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*4', 'nodes.replaced': '0*2 1*3' } },
      });

      expect(run.notifications.map(said)).toEqual([
        `${minuteIso(1)} page opened first`,
        `${minuteIso(2)} page opened second`,
      ]);
    });

    it('keeps an incident open while a page-level symptom fires after its root went clear', () => {
      const run = runEngine({
        rules: [cause({ holdDown: '2m' }), symptom()],
        clusters: { 'dev-a': { 'webhook.p99': '1*3 0*10', 'nodes.replaced': '0 1*12' } },
      });

      expect(run.notifications.map((n) => n.kind)).toEqual(['page', 'update']);
    });

    it('lets a ticket-level symptom not hold a page open', () => {
      const run = runEngine({
        rules: [cause({ holdDown: '2m' }), symptom({ severity: 'ticket' })],
        clusters: { 'dev-a': { 'webhook.p99': '1*3 0*10', 'nodes.replaced': '0 1*12' } },
      });

      expect(run.notifications.filter((n) => n.kind === 'resolve').map(said)).toEqual([
        `${minuteIso(5)} resolve resolved cause`,
      ]);
    });
  });

  describe('reminders', () => {
    it('reminds on-call of an open page after the renotify interval of 4 hours', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99')],
        clusters: { 'dev-a': { 'webhook.p99': '1*300' } },
      });

      expect(run.notifications.map(said)).toEqual([
        `${minuteIso(0)} page opened outage`,
        `${minuteIso(240)} update reminder outage`,
      ]);
    });

    it('titles a reminder as still firing', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99')],
        clusters: { 'dev-a': { 'webhook.p99': '1*12' } },
        renotify: '10m',
      });

      expect(run.notifications.filter((n) => n.reason === 'reminder').map((n) => n.title)).toEqual([
        'Still firing: Rule outage fires on dev-a',
      ]);
    });

    it('does not remind about a ticket', () => {
      const run = runEngine({
        rules: [flagRule('tax', 'webhook.p99', { severity: 'ticket' })],
        clusters: { 'dev-a': { 'webhook.p99': '1*30' } },
        renotify: '10m',
      });

      expect(run.notifications.map((n) => n.kind)).toEqual(['ticket']);
    });
  });

  describe('maintenance', () => {
    it('holds back a muted rule and sends it when the window ends if it still fires', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { maintenance: 'mute' })],
        clusters: { 'dev-a': { 'webhook.p99': '0*2 1*18' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 10 }],
      });

      expect(run.notifications.map(said)).toEqual([`${minuteIso(10)} page maintenance-ended outage`]);
    });

    it('sends nothing when the window ends for a muted incident that stopped firing', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { maintenance: 'mute', holdDown: '15m' })],
        clusters: { 'dev-a': { 'webhook.p99': '0*2 1*3 0*30' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 10 }],
      });

      expect([run.notifications, run.incidents.map((i) => i.status)]).toEqual([[], ['resolved']]);
    });

    it('keeps the time the muted incident opened', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { maintenance: 'mute' })],
        clusters: { 'dev-a': { 'webhook.p99': '0*2 1*18' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 10 }],
      });

      expect(only(run.notifications).openedAt).toBe(minuteIso(2));
    });

    it('sends nothing for a muted incident that resolves inside the window', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { maintenance: 'mute', holdDown: '2m' })],
        clusters: { 'dev-a': { 'webhook.p99': '0*2 1*3 0*25' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 20 }],
      });

      expect([run.notifications, run.incidents.map((i) => i.status)]).toEqual([[], ['resolved']]);
    });

    it('mutes only the clusters the window names', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { maintenance: 'mute' })],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*4' }, 'dev-b': { 'webhook.p99': '0 1*4' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 10 }],
      });

      expect(run.notifications.map((n) => n.clusters)).toEqual([['dev-b']]);
    });

    it('pages for a notify rule during maintenance', () => {
      const run = runEngine({
        rules: [flagRule('dark', 'webhook.p99', { maintenance: 'notify' })],
        clusters: { 'dev-a': { 'webhook.p99': '0*2 1*3' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 10 }],
      });

      expect(run.notifications.map(said)).toEqual([`${minuteIso(2)} page opened dark`]);
    });

    it('mutes a notifyWhenFiring rule while the named rule does not fire', () => {
      const run = runEngine({
        rules: [
          flagRule('storm', 'nodes.replaced', { maintenance: { notifyWhenFiring: ['degraded'] } }),
          flagRule('degraded', 'apiserver.write.p99'),
        ],
        clusters: { 'dev-a': { 'nodes.replaced': '0*2 1*3', 'apiserver.write.p99': '0*5' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 10 }],
      });

      expect(run.notifications).toEqual([]);
    });

    it('pages for a notifyWhenFiring rule while the named rule fires on the same cluster', () => {
      const run = runEngine({
        rules: [
          flagRule('storm', 'nodes.replaced', { maintenance: { notifyWhenFiring: ['degraded'] } }),
          flagRule('degraded', 'apiserver.write.p99'),
        ],
        clusters: { 'dev-a': { 'nodes.replaced': '0*2 1*3', 'apiserver.write.p99': '1*5' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 10 }],
      });

      expect(run.notifications.map(said)).toEqual([`${minuteIso(2)} page opened storm`]);
    });

    /** Degraded pages inside a window after 20 minutes of firing, or at once while 5xx reach 5 a minute. */
    const degraded = () =>
      flagRule('degraded', 'apiserver.write.p99', {
        maintenance: { notifyAfter: '20m', notifyWhen: { kind: 'threshold', of: 'apiserver.5xx', op: '>=', value: 5 } },
      });

    it('keeps muting short, mild blips inside the window', () => {
      const run = runEngine({
        rules: [degraded()],
        clusters: {
          'dev-a': { 'apiserver.write.p99': '0*5 1*3 0*5 1*3 0*40', 'apiserver.5xx': '0*5 2*3 0*5 2*3 0*40' },
        },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 50 }],
      });

      expect([run.notifications, run.incidents.map((i) => [i.status, i.mutedBy?.reason])]).toEqual([
        [],
        [['resolved', 'test maintenance']],
      ]);
    });

    it('pages inside the window once the rule has fired without a clear for longer than its grace period', () => {
      const run = runEngine({
        rules: [degraded()],
        clusters: { 'dev-a': { 'apiserver.write.p99': '0*5 1*30', 'apiserver.5xx': '0*35' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 60 }],
      });

      expect(run.notifications.map(said)).toEqual([`${minuteIso(25)} page maintenance-override degraded`]);
    });

    it('pages inside the window as soon as the outage is severe, saying why', () => {
      const run = runEngine({
        rules: [degraded()],
        clusters: { 'dev-a': { 'apiserver.write.p99': '0*5 1*30', 'apiserver.5xx': '0*10 9*25' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 60 }],
      });
      const page = only(run.notifications);

      expect([said(page), page.changes]).toEqual([
        `${minuteIso(10)} page maintenance-override degraded`,
        [
          `dev-a: paging despite maintenance "test maintenance" (engine fixtures, until ${minuteIso(60).slice(11, 16)}Z): degraded is severe: apiserver.5xx (latest sample) = 9, threshold >= 5`,
        ],
      ]);
    });

    it('says maintenance overrode the mute when the named rule starts firing inside the window', () => {
      const run = runEngine({
        rules: [
          flagRule('storm', 'nodes.replaced', { maintenance: { notifyWhenFiring: ['degraded'] } }),
          flagRule('degraded', 'apiserver.write.p99', { maintenance: 'mute' }),
        ],
        clusters: { 'dev-a': { 'nodes.replaced': '0*2 1*10', 'apiserver.write.p99': '0*6 1*6' } },
        maintenance: [{ cluster: 'dev-a', from: 0, to: 20 }],
      });

      expect(run.notifications.map(said)).toEqual([`${minuteIso(6)} page maintenance-override storm`]);
    });
  });

  describe('fleet incidents', () => {
    /** One backend behind four clusters: each fires from its own minute on, for 30 minutes, then clears. */
    const staggered = {
      'dev-a': { 'webhook.p99': '0*2 1*30 0*40' },
      'dev-b': { 'webhook.p99': '0*4 1*30 0*38' },
      'dev-c': { 'webhook.p99': '0*7 1*30 0*35' },
      'dev-d': { 'webhook.p99': '0*9 1*30 0*33' },
    };
    const pagesAndJoins = (notifications: readonly Notification[]) =>
      notifications.filter((n) => n.kind === 'page' || n.reason === 'joined');

    it('pages once for a rule that starts firing on four clusters minutes apart, then announces them as they join', () => {
      const run = runEngine({ rules: [flagRule('outage', 'webhook.p99')], clusters: staggered });

      expect(pagesAndJoins(run.notifications).map((n) => [n.at, n.kind, n.changes])).toEqual([
        [minuteIso(2), 'page', []],
        [minuteIso(7), 'update', ['joined: dev-b, dev-c']],
        [minuteIso(12), 'update', ['joined: dev-d']],
      ]);
    });

    it('titles the update about clusters that joined as the outage spreading', () => {
      const run = runEngine({ rules: [flagRule('outage', 'webhook.p99')], clusters: staggered });

      expect(run.notifications.filter((n) => n.reason === 'joined').map((n) => n.title)).toEqual([
        'Spreading: Rule outage fires on dev-a and 2 more',
        'Spreading: Rule outage fires on dev-a and 3 more',
      ]);
    });

    it('resolves the fleet incident once, when its last cluster has recovered, naming every cluster', () => {
      const run = runEngine({ rules: [flagRule('outage', 'webhook.p99', { holdDown: '5m' })], clusters: staggered });
      const resolve = only(run.notifications.filter((n) => n.kind === 'resolve'));

      expect([resolve.at, resolve.clusters]).toEqual([minuteIso(44), ['dev-a', 'dev-b', 'dev-c', 'dev-d']]);
    });

    it('groups the same when the clusters are read on a staggered five-minute cycle as when all are read every minute', () => {
      const rules = [flagRule('outage', 'webhook.p99', { holdDown: '5m' })];
      const offsets: Record<string, number> = { 'dev-a': 0, 'dev-b': 1, 'dev-c': 2, 'dev-d': 3 };
      const everyMinute = runEngine({ rules, clusters: staggered });
      const staggeredReads = runEngine({
        rules,
        clusters: staggered,
        reads: (c, m) => (m + (offsets[c] ?? 0)) % 5 === 0,
      });
      const shape = (run: typeof everyMinute) => [
        run.notifications.filter((n) => n.kind === 'page').length,
        [...new Set(pagesAndJoins(run.notifications).flatMap((n) => n.clusters))].sort(),
        run.notifications.filter((n) => n.kind === 'resolve').map((n) => [...n.clusters].sort()),
      ];

      expect(shape(staggeredReads)).toEqual(shape(everyMinute));
    });

    it('pages separately for two rules that start firing on two clusters minutes apart', () => {
      const run = runEngine({
        rules: [flagRule('blackhole', 'webhook.p99'), flagRule('overload', 'apiserver.write.p99')],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*9' }, 'dev-b': { 'apiserver.write.p99': '0*4 1*6' } },
      });

      expect(run.notifications.map((n) => [n.kind, n.rule, n.clusters])).toEqual([
        ['page', 'blackhole', ['dev-a']],
        ['page', 'overload', ['dev-b']],
      ]);
    });

    /** When, what and about which clusters on-call hears of one rule firing on dev-a and dev-b as the series say. */
    const twoClusters = (a: string, b: string, grouping: EngineRunOptions['grouping']) =>
      runEngine({
        rules: [flagRule('outage', 'webhook.p99')],
        clusters: { 'dev-a': { 'webhook.p99': a }, 'dev-b': { 'webhook.p99': b } },
        grouping,
      }).notifications.map((n) => [n.at, n.kind, n.clusters]);

    it('pages again for a cluster that starts firing once the fleet incident is older than the join window', () => {
      expect(twoClusters('1*20', '0*12 1*8', { joinWithin: '10m' })).toEqual([
        [minuteIso(0), 'page', ['dev-a']],
        [minuteIso(12), 'page', ['dev-b']],
      ]);
    });

    it('waits group_wait before the first page, so that clusters that break soon after are in it', () => {
      expect(twoClusters('0 1*9', '0*2 1*8', { wait: '2m' })).toEqual([[minuteIso(3), 'page', ['dev-a', 'dev-b']]]);
    });

    it('records on every cluster the fleet incident it belongs to', () => {
      const run = runEngine({ rules: [flagRule('outage', 'webhook.p99')], clusters: staggered });

      expect(new Set(run.incidents.map((i) => i.group?.id))).toEqual(new Set([`dev-a/outage/${minuteIso(2)}`]));
    });
  });

  describe('a root rule removed from the configuration', () => {
    it('closes its open incident with a resolve instead of stopping the poll', () => {
      const first = runEngine({
        rules: [flagRule('gone', 'webhook.p99')],
        clusters: { 'dev-a': { 'webhook.p99': '1*3' } },
      });
      const [incident] = first.incidents;
      const output = step({
        at: minuteMs(3),
        ruleSet: ruleSetOf(flagRule('other', 'nodes.total')),
        settings: engineSettings(),
        mutes: [],
        incidents: first.incidents,
        clusters: [
          {
            cluster: 'dev-a',
            window: new SeriesWindow(expandSignals({ 'nodes.total': '0*4' }), 60, 3),
            rules: ruleSetOf(flagRule('other', 'nodes.total')).forCluster([]),
          },
        ],
      });

      expect([output.notifications.map(said), output.changed.map((i) => [i.id, i.status])]).toEqual([
        [`${minuteIso(3)} resolve resolved gone`],
        [[incident?.id, 'resolved']],
      ]);
    });
  });

  describe('notifications', () => {
    it('sends one notification listing every cluster where the same rule fires in one step', () => {
      const signals = { 'webhook.p99': '0 1*3' };
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99')],
        clusters: { 'dev-a': signals, 'dev-b': signals, 'dev-c': signals },
      });
      const page = only(run.notifications);

      expect([page.clusters, page.incidents.length, page.title]).toEqual([
        ['dev-a', 'dev-b', 'dev-c'],
        3,
        'Rule outage fires on dev-a and 2 more',
      ]);
    });

    it('announces a cluster that starts firing the same rule a minute later as an update, not a second page', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99')],
        clusters: { 'dev-a': { 'webhook.p99': '0 1*6' }, 'dev-b': { 'webhook.p99': '0*2 1*5' } },
      });

      expect(run.notifications.map((n) => [n.kind, n.reason, n.clusters])).toEqual([
        ['page', 'opened', ['dev-a']],
        ['update', 'joined', ['dev-a', 'dev-b']],
      ]);
    });

    it('carries the evidence, hints and runbook of the rule in a page', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99')],
        clusters: { 'dev-a': { 'webhook.p99': '0 3' } },
      });
      const page = only(run.notifications);

      expect([
        page.evidence.map((e) => [e.cluster, e.rule, e.items.map((i) => i.observed)]),
        page.hints,
        page.runbook,
      ]).toEqual([
        [['dev-a', 'outage', [3]]],
        [{ text: 'Fix outage.', source: 'engine fixtures' }],
        'https://runbooks.test/docs/runbooks/outage.md',
      ]);
    });

    it('gives identical input identical notifications and ids', () => {
      const ruleSet = ruleSetOf(flagRule('outage', 'webhook.p99'));
      const series = expandSignals({ 'webhook.p99': '0 1 1' });
      const input = (): StepInput => ({
        at: minuteMs(2),
        ruleSet,
        settings: engineSettings(),
        mutes: [],
        incidents: [],
        clusters: ['dev-a', 'dev-b'].map((cluster) => ({
          cluster,
          window: new SeriesWindow(series, 60, 2),
          rules: ruleSet.forCluster([]),
        })),
      });

      expect(step(input()).notifications).toEqual(step(input()).notifications);
    });

    it('gives notifications of one incident at different steps different ids', () => {
      const run = runEngine({
        rules: [flagRule('outage', 'webhook.p99', { holdDown: '1m' })],
        clusters: { 'dev-a': { 'webhook.p99': '1 0*3' } },
      });
      const ids = run.notifications.map((n) => n.id);

      expect(new Set(ids).size).toBe(2);
    });
  });
});
