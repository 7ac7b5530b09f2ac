/** FNV-1a, to give grouped notifications a short, deterministic id without importing a crypto module. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** Levenshtein distance: how many letters to add, drop or change to turn `a` into `b`. */
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
