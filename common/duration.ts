// Durations as people write them (`24h`, `90s`) for flags and configuration.
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a duration such as `500ms`, `10s`, `30m`, `24h` or `7d` into milliseconds.
 * Throws a message that names the bad value and the accepted forms.
 */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) {
    throw new Error(`bad duration ${JSON.stringify(text)}: use a number and a unit, e.g. 500ms, 10s, 30m, 24h, 7d`);
  }
  return Math.round(Number(match[1]) * UNITS[match[2]]);
}
