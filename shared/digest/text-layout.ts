/** Plain-text email reads well up to here, and no client wraps it behind the reader's back. */
export const EMAIL_COLUMNS = 100;

export function columns(text: string): number {
  return [...text].length;
}

/**
 * Wrap text at spaces so that no line is wider than `width` columns: the first line starts with `first`, the others
 * with `rest`. A word longer than a line is split where the line ends, except a URL: a split URL is a dead link in a
 * mail client, so it goes whole on a line of its own, the one line allowed to be wider.
 */
export function wrap(text: string, first = '', rest = first, width = EMAIL_COLUMNS): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  const room = () => width - columns(line);
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    const needed = columns(word) + (empty ? 0 : 1);
    if (needed <= room()) {
      line += empty ? word : ` ${word}`;
      empty = false;
      continue;
    }
    if (!empty) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word)) {
      lines.push(line + word);
      line = rest;
      continue;
    }
    let remaining = [...word];
    while (remaining.length > room()) {
      const take = Math.max(1, room());
      lines.push(line + remaining.slice(0, take).join(''));
      line = rest;
      remaining = remaining.slice(take);
    }
    line += remaining.join('');
    empty = remaining.length === 0;
  }
  if (!empty || lines.length === 0) lines.push(line);
  return lines;
}

/** Left-aligned columns of the given widths; a cell wider than its column pushes the rest right. */
export function row(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((cell, index) => (index === cells.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
    .join(' ')
    .trimEnd();
}
