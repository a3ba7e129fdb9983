// Loading a user's config file (TypeScript or JavaScript), with errors that say what to fix.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SweepConfig } from './define-sweep';
import { faultNamed, isVersioning, type NamedReceiver } from '../faults';
import { CONFIG, fieldProblems, POINTS, RECEIVER, ROW } from './config-schema';

/** Thrown for a config file that is missing, does not load, or lacks what the sweep needs. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Loads a config file (`.ts` or `.js`; its default export, or `module.exports`), checking what the
 * sweep needs. TypeScript loads through tsx, which every process of the sweep has registered.
 */
export function loadSweepConfig(file: string): { config: SweepConfig; file: string } {
  const abs = path.resolve(file);
  let mod: { default?: unknown } & Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a user's file, loaded by path at run time (tsx compiles a .ts one)
    mod = require(abs) as typeof mod;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // Only the file itself missing is "no config file"; a module it requires that is missing is its own error.
    const there = ['', '.ts', '.js', '.mjs', '.cjs'].some((ext) => existsSync(abs + ext));
    if (e.code === 'MODULE_NOT_FOUND' && !there) throw new ConfigError(`no config file at ${abs}`);
    throw new ConfigError(`the config ${abs} did not load: ${e.message}`);
  }
  const config = (mod.default ?? mod) as Partial<SweepConfig>;
  // Said from where the command runs: `crash-sweep.config.ts: plugns is not a config field (...)`.
  const shown = path.relative(process.cwd(), abs).startsWith('..') ? abs : path.relative(process.cwd(), abs);
  const problems = configProblems(config);
  if (problems.length > 0)
    throw new ConfigError(
      `${problems.map((p) => `${shown}: ${p}`).join('\n')}\n(every field, its type and default: docs/config.md, "The fields")`,
    );
  return { config: config as SweepConfig, file: abs };
}

/**
 * Everything wrong with a config, one line each beginning with the field's path: a field no level
 * has (with the nearest name), a wrong type, a required one missing (`config-schema.ts`), then the
 * finer checks of values the schema types only loosely (an enum, a fault's name, a whole number).
 */
export function configProblems(config: unknown): string[] {
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    return ['its default export is not a config object (defineSweep({ ... }))'];
  const c = config as Partial<SweepConfig> & Record<string, unknown>;
  const problems = fieldProblems(c, CONFIG);
  if (Array.isArray(c.receivers)) problems.push(...receiverProblems(c.receivers as unknown[]));
  const receivers = declaredReceivers(c);
  if (Array.isArray(c.rows)) {
    if (c.rows.length === 0) problems.push('rows is an empty list: give one row at least, or no rows');
    for (const [i, r] of (c.rows as unknown[]).entries()) {
      if (typeof r !== 'object' || r === null || Array.isArray(r)) {
        problems.push(`rows[${i}] is not a row ({ name, ... })`);
        continue;
      }
      problems.push(
        ...fieldProblems(r as Record<string, unknown>, ROW, `rows[${i}].`),
        ...rowValueProblems(r as NonNullable<SweepConfig['rows']>[number], i, receivers),
      );
    }
  }
  if (typeof c.points === 'object' && c.points !== null && !Array.isArray(c.points))
    problems.push(...fieldProblems(c.points as Record<string, unknown>, POINTS, 'points.'));
  if (Array.isArray(c.plugins))
    for (const [i, p] of (c.plugins as unknown[]).entries())
      if (typeof p !== 'object' || p === null || typeof (p as { name?: unknown }).name !== 'string')
        problems.push(`plugins[${i}] is not a Temporal worker plugin (an object with its name)`);
  if (typeof c.activityTimeouts === 'string' && c.activityTimeouts !== 'capped' && c.activityTimeouts !== 'own')
    problems.push(`activityTimeouts is ${JSON.stringify(c.activityTimeouts)}, not 'capped' or 'own'`);
  return problems;
}

/** The receivers a config declares, as its rows' fault names need them (those well formed). */
export function declaredReceivers(config: Partial<SweepConfig>): NamedReceiver[] {
  if (!Array.isArray(config.receivers)) return [];
  return (config.receivers as unknown[]).flatMap((r) => {
    const { name, activities } = (r ?? {}) as Partial<NamedReceiver>;
    return typeof name === 'string' && Array.isArray(activities) ? [{ name, activities }] : [];
  });
}

/** What is wrong with the receivers a config declares: their fields, a name twice, a script that is not there. */
function receiverProblems(receivers: unknown[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const [i, r] of receivers.entries()) {
    const at = `receivers[${i}].`;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
      problems.push(`receivers[${i}] is not a receiver ({ name, script, urlEnv, activities })`);
      continue;
    }
    const spec = r as Partial<NonNullable<SweepConfig['receivers']>[number]>;
    problems.push(...fieldProblems(r as Record<string, unknown>, RECEIVER, at));
    if (typeof spec.name === 'string') {
      if (!/^[a-z0-9][a-z0-9-]*$/i.test(spec.name))
        problems.push(
          `${at}name is ${JSON.stringify(spec.name)}: letters, digits and dashes (it is part of fault names)`,
        );
      if (names.has(spec.name)) problems.push(`${at}name ${JSON.stringify(spec.name)} is declared twice`);
      names.add(spec.name);
    }
    if (typeof spec.urlEnv === 'string' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(spec.urlEnv))
      problems.push(`${at}urlEnv is ${JSON.stringify(spec.urlEnv)}, not the name of an environment variable`);
    if (typeof spec.script === 'string' && !existsSync(spec.script))
      problems.push(`${at}script ${spec.script} is not there (give its path: require.resolve of your script)`);
    if (Array.isArray(spec.activities) && spec.activities.length === 0)
      problems.push(`${at}activities is empty: name the activity types that call it`);
    if (spec.env && typeof spec.env === 'object')
      for (const [k, v] of Object.entries(spec.env))
        if (typeof v !== 'string') problems.push(`${at}env.${k} is not a string`);
  }
  return problems;
}

/** A row's values that its fields' types allow but the sweep does not. */
function rowValueProblems(
  r: NonNullable<SweepConfig['rows']>[number],
  i: number,
  receivers: readonly NamedReceiver[],
): string[] {
  const problems: string[] = [];
  const at = `rows[${i}].`;
  const oneOf = (field: string, value: unknown, allowed: readonly string[]) => {
    if (typeof value === 'string' && !allowed.includes(value))
      problems.push(`${at}${field} is ${JSON.stringify(value)}, not ${allowed.map((a) => `'${a}'`).join(' or ')}`);
  };
  oneOf('serverDies', r.serverDies, ['worker-survives', 'worker-dies']);
  oneOf('reset', r.reset, ['last-task', 'first-task']);
  if (typeof r.versioning === 'string' && !isVersioning(r.versioning))
    oneOf('versioning', r.versioning, ['unversioned', 'pinned', 'auto-upgrade']);
  else if (r.versioning !== undefined && r.nextBuild === undefined)
    problems.push(`${at}versioning is given without nextBuild (how its next build is deployed)`);
  if (r.nextBuild === '') problems.push(`${at}nextBuild is empty (the next build's workflows, a path)`);
  const named = Array.isArray(r.faults) ? r.faults.filter((f): f is string => typeof f === 'string') : [];
  if (named.some((f) => f.startsWith('activity-operation:')) && !named.some((f) => /^partition:.+:reply-lost$/.test(f)))
    problems.push(
      `${at}faults: an activity operation acts on a call stuck behind a partition that lost its reply: name partition:RECEIVER:reply-lost in the same row`,
    );
  if (Array.isArray(r.faults))
    for (const f of r.faults)
      if (typeof f === 'string')
        try {
          faultNamed(f, receivers);
        } catch (err) {
          problems.push(`${at}faults: ${(err as Error).message}`);
        }
  return problems;
}
