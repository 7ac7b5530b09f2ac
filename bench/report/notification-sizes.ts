import { LARGEST_FLEET } from '../notification-sizes.ts';
import type { BenchResults } from '../report.ts';
import { count, table } from './markdown.ts';

/** Each protocol's body beside its documented limit (shared/notify/protocol-limits.ts). */
export function notificationSizesSection({ notificationSizes: rows }: BenchResults): string[] {
  if (!rows) return [];
  return [
    '## Notification sizes',
    '',
    `The first page of the opa-webhook-outage replay (one cluster), and the same page grouping ${count(LARGEST_FLEET)} clusters with names of 100 characters, as each protocol receives it.`,
    '',
    table(
      ['protocol', 'field', 'one-cluster page', `${count(LARGEST_FLEET)}-cluster page`, 'limit'],
      rows.map((r) => [r.protocol, r.what, count(r.onePage), count(r.largestFleet), `${count(r.limit)} ${r.unit}`]),
    ),
    '',
  ];
}
