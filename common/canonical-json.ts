// JSON with every object's keys sorted: one text for equal values, whatever their keys' order.

/**
 * JSON with every object's keys sorted (by UTF-16 code units, as `Array.prototype.sort`), so equal
 * values have one text: the tracker's request fingerprints and the digest an approval binds to. Keys
 * whose value is `undefined` are left out, as `JSON.stringify` leaves them out. Pure: safe in workflow code.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
