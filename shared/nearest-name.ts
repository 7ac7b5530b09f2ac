/**
 * The known name nearest to a mistyped one, for an error that says what was probably meant: the one fewest edits away
 * (Levenshtein distance), if it is near enough that the suggestion helps (at most a third of the longer name, and at
 * least one edit); undefined when none is.
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(1, Math.floor(Math.max(name.length, best.name.length) / 3));
  return best.distance <= allowed ? best.name : undefined;
}

/** "did you mean X?" for a mistyped name, or a list of what is known when nothing is near. */
export function suggestion(name: string, known: readonly string[]): string {
  const near = nearestName(name, known);
  if (near !== undefined) return `did you mean "${near}"?`;
  return known.length === 0
    ? 'none is known'
    : `known: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', ...' : ''}`;
}

/**
 * `: did you mean "prod-euw1"?` for the known name nearest to a misspelt one (a third of its letters or fewer
 * differ, at most 3), or nothing when none is that near: a suggestion that far off would mislead.
 */
export function didYouMean(name: string, known: Iterable<string>): string {
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best ? `: did you mean "${best.name}"?` : '';
}

/** Levenshtein distance: the fewest insertions, deletions and substitutions that turn one text into the other. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
