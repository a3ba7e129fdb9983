// Loading a user's config file (TypeScript or JavaScript), with errors that say what to fix.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SweepConfig } from './define-sweep';
import { faultNamed, isVersioning } from '../faults';

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
  const wrong: string[] = [];
  if (typeof config.workflowsPath !== 'string')
    wrong.push("workflowsPath (a path, e.g. require.resolve('./workflows'))");
  for (const fn of ['activities', 'start', 'check'] as const)
    if (typeof config[fn] !== 'function') wrong.push(`${fn} (a function)`);
  for (const fn of ['setup', 'teardown', 'person'] as const)
    if (config[fn] !== undefined && typeof config[fn] !== 'function') wrong.push(`${fn} (a function, if given)`);
  if (
    config.rows !== undefined &&
    (!Array.isArray(config.rows) || config.rows.length === 0 || config.rows.some((r) => typeof r?.name !== 'string'))
  ) {
    wrong.push('rows (a list of { name, label? }, if given)');
  }
  for (const r of Array.isArray(config.rows) ? config.rows : []) {
    if (r?.serverDies !== undefined && r.serverDies !== 'worker-survives' && r.serverDies !== 'worker-dies') {
      wrong.push(
        `rows: ${JSON.stringify(r.name)} has serverDies ${JSON.stringify(r.serverDies)} (worker-survives or worker-dies, if given)`,
      );
    }
    if (r?.faults !== undefined && (!Array.isArray(r.faults) || r.faults.some((f) => typeof f !== 'string'))) {
      wrong.push(
        `rows: ${JSON.stringify(r.name)} has faults ${JSON.stringify(r.faults)} (a list of fault names, if given)`,
      );
    } else {
      for (const f of r?.faults ?? []) {
        try {
          faultNamed(f);
        } catch (err) {
          wrong.push(`rows: ${JSON.stringify(r.name)}: ${(err as Error).message}`);
        }
      }
    }
    if (r?.nextBuild !== undefined && (typeof r.nextBuild !== 'string' || r.nextBuild === '')) {
      wrong.push(
        `rows: ${JSON.stringify(r.name)} has nextBuild ${JSON.stringify(r.nextBuild)} (the next build's workflows, a path as workflowsPath, if given)`,
      );
    }
    if (r?.versioning !== undefined && !isVersioning(r.versioning)) {
      wrong.push(
        `rows: ${JSON.stringify(r.name)} has versioning ${JSON.stringify(r.versioning)} (unversioned, pinned or auto-upgrade, if given)`,
      );
    } else if (r?.versioning !== undefined && r.nextBuild === undefined) {
      wrong.push(`rows: ${JSON.stringify(r.name)} has versioning without nextBuild (how its next build is deployed)`);
    }
    if (r?.control !== undefined && typeof r.control !== 'boolean') {
      wrong.push(`rows: ${JSON.stringify(r.name)} has control ${JSON.stringify(r.control)} (true or false, if given)`);
    }
    if (r?.reset !== undefined && r.reset !== 'last-task' && r.reset !== 'first-task') {
      wrong.push(
        `rows: ${JSON.stringify(r.name)} has reset ${JSON.stringify(r.reset)} (last-task or first-task, if given)`,
      );
    }
  }
  if (
    config.plugins !== undefined &&
    (!Array.isArray(config.plugins) ||
      config.plugins.some((p) => typeof p !== 'object' || p === null || typeof p.name !== 'string'))
  )
    wrong.push('plugins (a list of Temporal worker plugins, each with its name, if given)');
  if (config.control !== undefined && typeof config.control !== 'boolean') {
    wrong.push(`control ${JSON.stringify(config.control)} (true or false, if given)`);
  }
  if (
    config.activityTimeouts !== undefined &&
    config.activityTimeouts !== 'capped' &&
    config.activityTimeouts !== 'own'
  )
    wrong.push(`activityTimeouts 'capped' or 'own', if given (it is ${JSON.stringify(config.activityTimeouts)})`);
  if (wrong.length > 0)
    throw new ConfigError(
      `the config ${abs} needs: ${wrong.join('; ')}. See docs/config.md (Sweep your own workflow).`,
    );
  return { config: config as SweepConfig, file: abs };
}
