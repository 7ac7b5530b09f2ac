/**
 * Reads JSURL back into JSON, as the CloudWatch console does with the `graph=` of a metrics link: tests check what a
 * link graphs, not only how it is spelled.
 */
export function parseJsurl(text: string): unknown {
  let at = 0;
  const expect = (character: string) => {
    if (text[at] !== character) throw new Error(`expected "${character}" at ${at} of ${text}`);
    at++;
  };
  const word = (): string => {
    const start = at;
    while (at < text.length && text[at] !== '~' && text[at] !== ')') at++;
    return text
      .slice(start, at)
      .replace(/\*\*([0-9a-f]{4})|\*([0-9a-f]{2})|!/g, (_, wide: string, narrow: string) =>
        wide || narrow ? String.fromCharCode(Number.parseInt(wide ?? narrow, 16)) : '$',
      );
  };
  const value = (): unknown => {
    expect('~');
    if (text[at] === "'") {
      at++;
      return word();
    }
    if (text[at] !== '(') {
      const token = word();
      return token === 'true' ? true : token === 'false' ? false : token === 'null' ? null : Number(token);
    }
    at++;
    if (text[at] === '~') {
      const items: unknown[] = [];
      if (text[at + 1] === ')') at++;
      else while (text[at] === '~') items.push(value());
      expect(')');
      return items;
    }
    const object: Record<string, unknown> = {};
    while (text[at] !== ')') {
      const key = word();
      object[key] = value();
      if (text[at] === '~') at++;
    }
    expect(')');
    return object;
  };
  const parsed = value();
  if (at !== text.length) throw new Error(`unexpected "${text.slice(at)}" after the value`);
  return parsed;
}

/**
 * The metric rows of a console graph, each with every `.` replaced by what stands at its place in the row above, as
 * the console reads them; expression rows are left out.
 */
export function metricRows(graph: { readonly metrics: readonly unknown[][] }): unknown[][] {
  const rows: unknown[][] = [];
  for (const entry of graph.metrics) {
    if (typeof entry[0] !== 'string') continue;
    const above = rows.at(-1);
    rows.push(entry.map((cell, place) => (cell === '.' && above ? above[place] : cell)));
  }
  return rows;
}
