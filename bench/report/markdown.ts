import type { CostModel } from '../cost-model.ts';

/** Markdown for bench/RESULTS.md, shared by the section renderers. */

export const table = (header: readonly string[], rows: readonly (readonly (string | number)[])[]) => {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, column) => Math.max(3, ...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]) => `| ${widths.map((width, i) => (row[i] ?? '').padEnd(width)).join(' | ')} |`;
  return [
    line(cells[0] ?? []),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...cells.slice(1).map(line),
  ].join('\n');
};
export const min = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${n} min`);
export const dollars = (n: number) => (n < 0.01 && n > 0 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`);
/** Milliseconds as seconds to a tenth. */
export const seconds = (n: number) => `${(n / 1000).toFixed(1)} s`;
export const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;
export const mb = (n: number) => `${Math.round(n).toLocaleString('en-US')} MB`;
export const count = (n: number) => n.toLocaleString('en-US');

/** What each item of a deployment costs a month, fleet by fleet. */
export const costItems = (cost: CostModel) =>
  table(
    ['item', ...cost.fleets.map((f) => `${count(f.clusters)} cluster(s)`), 'basis (at the largest fleet)'],
    (cost.fleets[0]?.lines ?? []).map((line, index) => [
      line.item,
      ...cost.fleets.map((f) => dollars(f.lines[index]?.monthly ?? 0)),
      cost.fleets.at(-1)?.lines[index]?.basis ?? '',
    ]),
  );
