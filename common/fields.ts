// Fields a caller may give, and the refusal of one that is not among them: with the nearest known name.

/** The known name nearest to `name` (case aside), if it is near enough to be a typo of it. */
export function nearest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(name.toLowerCase(), k.toLowerCase());
    if (!best || distance < best.distance) best = { name: k, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** Levenshtein's distance: the fewest one-character edits that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/**
 * Why `given`'s keys are not all `known` ones, one line each: `<key> is not <what>`, with the nearest
 * known name when one is near (`plugns is not a config field (did you mean plugins?)`). For what
 * arrives from plain JavaScript or a file, which no type checker has seen.
 */
export function unknownKeys(given: object, known: readonly string[], what: string): string[] {
  return Object.keys(given)
    .filter((k) => !known.includes(k))
    .map((k) => {
      const near = nearest(k, known);
      return `${k} is not ${what}${near ? ` (did you mean ${near}?)` : ''}`;
    });
}
