import { renderDigest } from '../../shared/digest/render-digest.ts';
import type { Silence } from '../../shared/pipeline/silence.ts';
import {
  digestOf,
  incidentOf,
  isoMinute,
  NO_ACTIVITY,
  openedWith,
  pollsBetween,
  WEEK,
  weekMinute,
} from './digest-fixtures.ts';

const ALICE = 'arn:aws:sts::111122223333:assumed-role/Ops/alice';

/** Prod-a's upgrade: two hours from the first Tuesday 09:00, added by Alice, ended early by Bob. */
const UPGRADE: Silence = {
  id: 'a1b2c3d4',
  cluster: 'prod-a',
  from: weekMinute(33 * 60),
  to: weekMinute(34 * 60),
  reason: 'EKS 1.31 upgrade',
  author: ALICE,
  expired: { at: weekMinute(34 * 60), by: 'arn:aws:sts::111122223333:assumed-role/Ops/bob' },
};
/** A silence of the week before, which this week's digest does not list. */
const LAST_WEEK: Silence = { ...UPGRADE, id: 'e5f6a7b8', from: WEEK.from - 7200_000, to: WEEK.from - 3600_000 };

const heldTicket = incidentOf({
  cluster: 'prod-a',
  rule: 'node-churn',
  openedAt: isoMinute(33 * 60 + 10),
  resolvedAt: isoMinute(33 * 60 + 40),
  mutedBy: { silence: UPGRADE.id, reason: UPGRADE.reason, author: ALICE, until: isoMinute(35 * 60) },
});

describe('the digest of a week with silences', () => {
  const digest = digestOf({
    ...NO_ACTIVITY,
    incidents: [heldTicket],
    polls: pollsBetween(WEEK.from, WEEK.to),
    silences: [LAST_WEEK, UPGRADE],
  });

  it('lists each silence of the week with who added it, who ended it, and what it held back', () => {
    expect(digest.silences).toEqual([
      {
        id: 'a1b2c3d4',
        cluster: 'prod-a',
        from: isoMinute(33 * 60),
        to: isoMinute(34 * 60),
        author: ALICE,
        reason: 'EKS 1.31 upgrade',
        expired: { at: isoMinute(34 * 60), by: 'arn:aws:sts::111122223333:assumed-role/Ops/bob' },
        heldBack: [{ incident: heldTicket.id, cluster: 'prod-a', rule: 'node-churn', severity: 'ticket' }],
      },
    ]);
  });

  it('lists them in the email, in a section of their own', () => {
    const email = renderDigest(digest).bodies.email;

    expect(email).toContain(
      [
        'SILENCES AND WHAT THEY HELD BACK',
        '--------------------------------',
        '  a1b2c3d4: prod-a, every rule: "EKS 1.31 upgrade"',
        `     Added by ${ALICE}; from 2024-05-07 09:00, expired early`,
        '     2024-05-07 10:00 by arn:aws:sts::111122223333:assumed-role/Ops/bob.',
        '     Held back: ticket node-churn on prod-a (never shown).',
      ].join('\n'),
    );
  });

  it('says when a held-back incident was shown after all', () => {
    const shown = { ...heldTicket, notifiedAt: isoMinute(34 * 60) };
    const email = renderDigest(
      digestOf({ ...NO_ACTIVITY, incidents: [shown], notifications: [openedWith(shown)], silences: [UPGRADE] }),
    ).bodies.email;

    expect(email).toContain('Held back: ticket node-churn on prod-a (shown 2024-05-07 10:00).');
  });

  it('leaves the section out in a week without silences', () => {
    expect(renderDigest(digestOf(NO_ACTIVITY)).bodies.email).not.toContain('SILENCES');
  });
});
