/** A cluster's labels: its configured ones and those the pipeline gives it (`cluster`, `account`, `region`). */
export type Labels = Readonly<Record<string, string>>;

/**
 * One condition on a label, as amtool writes it (`environment=staging`, `rule!=node-churn`): `=` holds when the label
 * has the value, `!=` when it has another or none. `rule` is the root rule of an incident, `cluster` its cluster.
 */
export interface Matcher {
  readonly name: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

const MATCHER = /^([a-zA-Z_][a-zA-Z0-9_]*)\s*(!=|=)\s*(.+)$/;

/** The matcher a text writes, or undefined when it is not one. */
export function parseMatcher(text: string): Matcher | undefined {
  const match = MATCHER.exec(text.trim());
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  const value = match[3].trim().replace(/^"(.*)"$/, '$1');
  return value === '' ? undefined : { name: match[1], op: match[2] as Matcher['op'], value };
}

export function formatMatcher(matcher: Matcher): string {
  return `${matcher.name}${matcher.op}${matcher.value}`;
}

/** Whether every matcher holds on these labels; a label absent from them has the value "", as in Alertmanager. */
export function matchesAll(matchers: readonly Matcher[], labels: Labels): boolean {
  return matchers.every((m) => ((labels[m.name] ?? '') === m.value) === (m.op === '='));
}
