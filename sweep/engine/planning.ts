// Which points each scenario kills: the rows to sweep, the first pass from the clean runs' points,
// the second from the points each first-pass restart reached, and `--scenario N.M` to pick one.
import { newScenario, type RanScenario, type Scenario } from './scenario';
import type { SuiteRow } from './suite';
import { firstPassOnly } from '../faults';

/** One scenario, by its kill indexes: `first` in the clean run, `second` (if any) in the restart. */
export interface ScenarioChoice {
  first: number;
  second?: number;
}

/**
 * The rows `names` names, in that order, or all of them. A row is named by its name (`--variant
 * agent`) or by its title in the table (`--variant "agent loop, keyed tracker"`): a title holds
 * commas, so items of a comma list that are no row on their own are joined again with the ones after
 * them until they make a title. An unknown name is an error that lists the names, and how to see the titles.
 */
export function pickRows<R extends SuiteRow>(rows: readonly R[], names?: readonly string[]): R[] {
  if (!names || names.length === 0) return [...rows];
  const picked: R[] = [];
  for (let i = 0; i < names.length; i++) {
    const row = rows.find((r) => r.name === names[i] || r.label === names[i]);
    if (row) {
      picked.push(row);
      continue;
    }
    const titled = names
      .slice(i + 1)
      .map((_, j) => ({ title: names.slice(i, i + j + 2).join(', '), used: j + 2 }))
      .map(({ title, used }) => ({ row: rows.find((r) => r.label === title), used }))
      .find((t) => t.row);
    if (!titled)
      throw new Error(
        `unknown variant ${JSON.stringify(names[i])} (variants: ${rows.map((r) => r.name).join(', ')}; --list shows each with its title in the table)`,
      );
    picked.push(titled.row!);
    i += titled.used - 1;
  }
  return picked;
}

/** Each row's name (what `--variant` takes) beside its title in the table, one line each. */
export function formatRowList(rows: readonly SuiteRow[]): string {
  const width = Math.max(...rows.map((r) => r.name.length)) + 2;
  return rows.map((r) => `${r.name.padEnd(width)}${r.label}`).join('\n');
}

/** `N` or `N.M`, as in a scenario's id (`agent twice 3.7`); throws on anything else. */
export function parseScenarioLabel(label: string): ScenarioChoice {
  const m = label.trim().match(/^(?:[\w-]+ (?:once|twice) )?(\d+)(?:\.(\d+))?$/);
  if (!m)
    throw new Error(
      `bad scenario ${JSON.stringify(label)}: N or N.M, the label of a scenario id such as "agent twice 3.7"`,
    );
  return { first: Number(m[1]), second: m[2] === undefined ? undefined : Number(m[2]) };
}

/** The first pass: for each clean run, one fresh run killed at each point it reached (only `only.first`, if given). */
export function firstPass(cleans: readonly RanScenario[], only: ScenarioChoice | null): Scenario[] {
  return cleans.flatMap((c) =>
    c.finalPoints
      .map((p, i) => newScenario(c.row, 'once', `${i + 1}`, [{ index: i + 1 }], [p]))
      .filter((s) => !only || s.kills[0].index === only.first),
  );
}

/**
 * The second pass: for each first-pass scenario that finished (of a row not swept in the first pass
 * only), one run killed at the same first point, then again at each point its restart reached.
 */
export function secondPass(once: readonly RanScenario[], only: ScenarioChoice | null): Scenario[] {
  return once
    .filter((s) => !s.error && !firstPassOnly(s.row))
    .flatMap((s) =>
      s.finalPoints.map((p, j) =>
        newScenario(s.row, 'twice', `${s.kills[0].index}.${j + 1}`, [s.kills[0], { index: j + 1 }], [s.expected[0], p]),
      ),
    )
    .filter((s) => !only || (only.second !== undefined && s.kills[1].index === only.second));
}

/** One share of a sweep that several processes run together (`--shard K/N`): the K-th of N, from 1. */
export interface Shard {
  index: number;
  count: number;
}

/** `K/N` with 1 ≤ K ≤ N; throws on anything else. */
export function parseShard(text: string): Shard {
  const m = text.trim().match(/^(\d+)\/(\d+)$/);
  const shard = m ? { index: Number(m[1]), count: Number(m[2]) } : null;
  if (!shard || shard.count < 1 || shard.index < 1 || shard.index > shard.count)
    throw new Error(`bad shard ${JSON.stringify(text)}: K/N, the K-th share of N (1/2 and 2/2 for two)`);
  return shard;
}

/**
 * A shard's share of the first pass: every N-th scenario, from its K-th. Each shard runs every clean
 * run (the points must be the same in all of them) and the second pass of its own first-pass
 * scenarios only, so the shards' scenarios together are the whole sweep's, each run once.
 */
export function shareOf<T>(once: readonly T[], shard: Shard | undefined): T[] {
  return shard ? once.filter((_, i) => i % shard.count === shard.index - 1) : [...once];
}
