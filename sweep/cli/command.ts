// The sweep's command line: `npx crash-sweep` (`crash-sweep.ts`) and this repository's `npm run sweep`
// (`agent-sweep/crash-sweep.ts`, which gives it the repository's own table).
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commaList, inertLines, parseCommandLine, UsageError } from '../../common/cli';
import { ConfigError, loadSweepConfig } from '../config/load-config';
import { configRows, configSuite } from '../config/config-suite';
import {
  DEFAULT_BATCH,
  DEFAULT_LANES,
  DEFAULT_RERUNS,
  runSweep,
  type SuiteFactory,
  type SweepOptions,
  type SweepReport,
} from '../engine/passes';
import type { SuiteRow } from '../engine/suite';
import { formatRowList, parseScenarioLabel, parseShard, pickRows, type Shard } from '../engine/planning';
import { MERGE_USAGE, mergeCommand } from './merge';
import { MergeError } from '../report/merge';
import { describeServerLog } from '../hosts/dev-server-host';
import { formatReruns, jsonReport, rerunCommand, type JsonReport } from '../report/json';
import { EXIT_STATUS, formatVerdict, type Verdict } from '../judge/verdict';
import { REPORTING_FLAGS, REPORTING_HELP, REPORTING_USAGE, reportEnd, reportingOf, type Reporting } from './reporting';
import { formatTimings } from '../engine/timings';
import { describeStuck } from '../judge/stuck';
import { formatControls } from '../judge/controls';
import { FAULTS, faultNamed } from '../faults';

/** The command line: this repository's `npm run sweep --` (given a table), else the published `npx crash-sweep`. */
const usageOf = (table: SweepTable | undefined) =>
  `${table ? 'npm run sweep --' : 'npx crash-sweep'} [--config FILE] [--list] [--variant NAME,...] [--scenario N|N.M] [--full] ${REPORTING_USAGE} [--keep-server] [--address HOST:PORT] [--namespace NS] [--batch N] [--lanes N|auto] [--reruns N] [--shard K/N]`;

const help = (
  table: SweepTable | undefined,
) => `Kills a worker process at every crash point a clean run reaches (with --full, again at every point
of its recovery too), and prints what the kills did: duplicates, missing effects, questions to a
person, extra paid calls.
With --config FILE: your own workflow (see docs/config.md); without it: ${table ? table.describe : `the config file of this folder (${CONFIG_NAMES.join(', ')})`}.
  --list               list the rows: the name --variant takes, and the title in the table
  --variant NAME,...   only these rows, by name or by title  --scenario N|N.M   one scenario (needs one --variant)
  --full               the second pass too: every restart killed again at each of its points
                       (how long each takes on 2 cores: docs/benchmarks.md)
  --once               the first pass only (the default)
  --keep-server        keep the dev server and its Web UI after the sweep
  --address HOST:PORT  sweep on an existing Temporal server (--namespace NS)
  --batch N            scenarios per worker process (default ${DEFAULT_BATCH})
  --lanes N|auto       batches in flight; auto (the default): one, and one more while the machine
                       leaves 1.5 cores idle, at most one per 1.5 cores (1 on 2 cores)
  --reruns N           run a scenario that erred (a busy machine: a live task timed out, a kill
                       landed late) again up to N times, alone; it counts only when clean; and a row's
                       two clean runs that parted, until a pair agrees (default ${DEFAULT_RERUNS})
  --shard K/N          run the K-th of N shares of the scenarios, one sweep process of N on one server
                       (--address); join their --json reports with: ${MERGE_USAGE}
${REPORTING_HELP}
A row marked control must show damage: if one shows none, the sweep fails (it cannot see damage).
Faults (sweep/faults/; a config row names those marked * in rows[].faults):
${FAULTS.map((f) => `  ${isNameable(f.name) ? '*' : ' '} ${f.name.padEnd(32)} ${f.summary}`).join('\n')}`;

/** Whether a config row may name the fault (`rows[].faults`): a fault of a receiver, when the config declares it. */
function isNameable(name: string): boolean {
  try {
    faultNamed(name, [{ name: 'RECEIVER', activities: ['ACTIVITY'] }]);
    return true;
  } catch {
    return false;
  }
}

/**
 * The crash sweep's command: with `--config FILE`, of a user's own workflow; without it, of `table`
 * if given (this repository's `npm run sweep`), else of the folder's `crash-sweep.config.ts`. Progress goes to stderr, the table to stdout; `--json` writes
 * every scenario, `--html` a page that shows them (one self-contained file); `--reporter` chooses
 * reporters (`report/reporter.ts`). Its exit status says the verdict (`judge/verdict.ts`): 0 passed,
 * 1 damage in a `--fail-on` column of a row that is not a control, 2 a bad command line or config,
 * 3 the sweep could not judge (a kill did not land, a run did not finish, a history shows a timeout
 * no kill caused, a control showed no damage, or the harness failed).
 */
export async function crashSweep(argv: readonly string[], table?: SweepTable): Promise<void> {
  if (argv[0] === 'merge') return mergeCommand(argv.slice(1));
  const command = readCommand(argv, table);
  if (!command) return; // --help or --list, answered
  const { values, variants, suite, reporting, configPath, options } = command;

  // Interrupted (Ctrl-C, a CI job's SIGTERM): exit, which SIGKILLs every process the sweep started
  // (hosts/children.ts); the sweep's own dev server stops as its parent goes.
  let onInterrupt: (signal: NodeJS.Signals) => void = (signal) => {
    say(`${signal}: the sweep stops, and every process it started with it`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => onInterrupt(signal));

  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
  const passes = values.full
    ? 'killed once and twice'
    : 'first pass only: killed once (--full kills every restart again)';
  const { shard } = options;
  say(
    `crash sweep: ${variants.map((v) => v.name).join(', ')} (${passes})${values.address ? ` on ${values.address}` : ''}${shard ? `, shard ${shard.index}/${shard.count}` : ''}`,
  );
  // The dev server's own log is kept apart from the sweep's output, and named at the end if it says anything.
  const serverLog = values.address
    ? undefined
    : path.join(mkdtempSync(path.join(os.tmpdir(), 'crash-sweep-')), 'dev-server.log');
  for (const r of reporting.reporters) r.onBegin?.(variants.map((v) => v.name));
  const rerun = { existingServer: values.address !== undefined, config: configPath, command: sweepCommand() };
  let report: SweepReport;
  try {
    report = await runSweep({
      ...options,
      suite,
      rows: variants.map((v) => v.name),
      progress: (line) => say(`[${elapsed()}] ${line}`),
      serverLog,
    });
  } catch (err) {
    if (err instanceof ConfigError || err instanceof UsageError) throw err;
    cannotJudge(err as Error, reporting, { rerun, shard: shard ?? null, seconds: (Date.now() - started) / 1000 });
    return;
  }
  const verdict = sayReport(report, { table, configPath, serverLog, rerun, reporting });
  if (report.kept) {
    say(
      `the Temporal dev server is still running at ${report.kept.address}, Web UI at ${report.kept.ui}; Ctrl-C stops it`,
    );
    await new Promise<void>((stop) => (onInterrupt = () => stop()));
    await report.kept.stop();
  }
  for (const line of formatVerdict(verdict, reporting.failOn)) say(line);
  process.exitCode = verdict.status;
}

/** The command line read: its rows, its suite, its reporters, and the sweep's options; `null` once --help or --list is answered. */
function readCommand(argv: readonly string[], table: SweepTable | undefined) {
  const USAGE = usageOf(table);
  const { values } = parseCommandLine(
    [...argv],
    {
      config: { type: 'string' },
      variant: { type: 'string' },
      scenario: { type: 'string' },
      once: { type: 'boolean', default: false },
      full: { type: 'boolean', default: false },
      ...REPORTING_FLAGS,
      'keep-server': { type: 'boolean', default: false },
      address: { type: 'string' },
      namespace: { type: 'string' },
      batch: { type: 'string', default: String(DEFAULT_BATCH) },
      lanes: { type: 'string', default: String(DEFAULT_LANES) },
      reruns: { type: 'string', default: String(DEFAULT_RERUNS) },
      shard: { type: 'string' },
      list: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    USAGE,
  );
  if (values.help) {
    console.log(`usage: ${USAGE}\n\n${help(table)}`);
    return null;
  }
  let variants;
  let suite: SuiteFactory;
  let reporting: Reporting;
  // Without --config: the table this command was given, or the config file of this folder.
  const configPath = values.config ?? (table ? undefined : findConfig(process.cwd()));
  try {
    if (configPath !== undefined) {
      const { config, file } = loadSweepConfig(configPath);
      variants = pickRows(configRows(config, file), commaList(values.variant));
      suite = configSuite(file);
    } else {
      variants = pickRows(table!.rows, commaList(values.variant));
      suite = table!.suite(variants);
    }
    if (values.scenario !== undefined) parseScenarioLabel(values.scenario);
    reporting = reportingOf(values, configPath !== undefined);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new UsageError((err as Error).message, USAGE);
  }
  if (values.list) {
    console.log(formatRowList(variants));
    return null;
  }
  const options = sweepOptionsOf(values, variants.length, USAGE);
  return { values, variants, suite, reporting, configPath, options };
}

/** The sweep's options the command line gives (its passes, batches, lanes, reruns, shard and server), each checked; `rows`: how many it sweeps. */
function sweepOptionsOf(
  values: {
    once?: boolean;
    full?: boolean;
    scenario?: string;
    address?: string;
    namespace?: string;
    'keep-server'?: boolean;
    batch?: string;
    lanes?: string;
    reruns?: string;
    shard?: string;
  },
  rows: number,
  USAGE: string,
): Omit<SweepOptions, 'suite' | 'rows' | 'progress' | 'serverLog'> {
  if (values.once && values.full)
    throw new UsageError('--once and --full contradict each other: the first pass only, or both passes', USAGE);
  if (values.scenario !== undefined && rows !== 1)
    throw new UsageError('--scenario needs exactly one --variant', USAGE);
  if (values.address !== undefined && !/^[^\s:]+:\d+$/.test(values.address))
    throw new UsageError(`bad --address ${values.address}: HOST:PORT`, USAGE);
  if (values.address !== undefined && values['keep-server'])
    throw new UsageError("--keep-server keeps the sweep's own dev server: it cannot go with --address", USAGE);
  const batchSize = Number(values.batch);
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new UsageError(`bad --batch ${values.batch}: a whole number of scenarios`, USAGE);
  const lanes = values.lanes === 'auto' ? 'auto' : Number(values.lanes);
  if (lanes !== 'auto' && (!Number.isInteger(lanes) || lanes < 1))
    throw new UsageError(`bad --lanes ${values.lanes}: a whole number of batches in flight, or auto`, USAGE);
  const reruns = Number(values.reruns);
  if (!Number.isInteger(reruns) || reruns < 0)
    throw new UsageError(`bad --reruns ${values.reruns}: a whole number of runs again (0: none)`, USAGE);
  let shard: Shard | undefined;
  if (values.shard !== undefined) {
    try {
      shard = parseShard(values.shard);
    } catch (err) {
      throw new UsageError(`${(err as Error).message.replace(/^bad shard/, 'bad --shard')}`, USAGE);
    }
    if (values.scenario !== undefined)
      throw new UsageError('--scenario runs one scenario: it cannot be split with --shard', USAGE);
  }
  return {
    // A scenario N.M is one of the second pass.
    twice: !!values.full || (values.scenario !== undefined && parseScenarioLabel(values.scenario).second !== undefined),
    batchSize,
    lanes,
    reruns,
    shard,
    scenario: values.scenario,
    address: values.address,
    namespace: values.namespace,
    keepServer: values['keep-server'],
  };
}

/** Says what the sweep found on stderr, and ends its reporters; returns the verdict. */
function sayReport(
  report: SweepReport,
  how: {
    table: SweepTable | undefined;
    configPath: string | undefined;
    serverLog: string | undefined;
    rerun: Parameters<typeof jsonReport>[1];
    reporting: Reporting;
  },
): Verdict {
  const { rerun } = how;
  for (const note of report.notes) say(note);
  const total = report.scenarios.length;
  say(
    `${total} scenarios in ${report.seconds.toFixed(1)} s (${(total / report.seconds).toFixed(1)} scenarios/s), ${report.generations} worker generations${report.lanes > 1 ? ` in up to ${report.lanes} lanes` : ''}${statsFormatterOf(how.table, how.configPath)(report.stats)}${report.temporalKills > 0 ? `, ${report.temporalKills} Temporal server kills` : ''}`,
  );
  say(formatTimings(report));
  const logged = how.serverLog && describeServerLog(how.serverLog);
  if (logged) say(logged);
  if (report.reruns.length > 0) say(formatReruns(report.reruns));
  const data = jsonReport(report, rerun);
  // A control that shows no damage fails the sweep (not judged for one scenario or a shard).
  if (report.controls) say(formatControls(report.controls));
  const verdict = reportEnd(data, report.controls, how.reporting);
  // Runs that can never finish are damage, not errors: each is named with its cause.
  const again = (s: SweepReport['scenarios'][number]) =>
    rerunCommand(
      s.row.name,
      s.kills.map((k) => k.index ?? 0),
      rerun,
    );
  const stuck = report.scenarios.filter((s) => s.stuck);
  for (const s of stuck.slice(0, 20)) say(`stuck: ${s.id}: ${describeStuck(s.stuck!)}\n  again: ${again(s)}`);
  if (stuck.length > 20) say(`and ${stuck.length - 20} more stuck (--json lists them all)`);
  const failed = report.scenarios.filter((s) => s.error);
  for (const s of failed.slice(0, 20)) say(`error: ${s.id}: ${s.error}\n  again: ${again(s)}`);
  return verdict;
}

/**
 * The command that started this sweep, as it works where it ran: `npm run sweep --` in this
 * repository, `npx crash-sweep` in a project that depends on it (which has no `sweep` script).
 */
function sweepCommand(): string {
  const inThisRepository = path.resolve(process.cwd()) === path.resolve(__dirname, '..', '..');
  return process.env.npm_lifecycle_event === 'sweep' || inThisRepository ? 'npm run sweep --' : 'npx crash-sweep';
}

/**
 * How the summary line says the suite's own figures: the table's own way for its rows; for a config's
 * (`--config`, even through a command that has a table), `, NAME N` each.
 */
export function statsFormatterOf(
  table: SweepTable | undefined,
  configPath: string | undefined,
): (stats: Record<string, number>) => string {
  return (configPath === undefined && table?.formatStats) || formatStats;
}

/** The suite's own figures, for the summary line: `, NAME N` each. */
function formatStats(stats: Record<string, number>): string {
  return Object.entries(stats)
    .map(([k, v]) => `, ${k} ${v}`)
    .join('');
}

/** The exit status of a command that failed: bad input for a config or shard reports it cannot use, else the harness's failure. */
export function exitStatusOf(err: Error): number {
  return err instanceof ConfigError || err instanceof MergeError ? EXIT_STATUS.badInput : EXIT_STATUS.harness;
}

/**
 * A sweep that stopped before it could judge (a clean run that is not clean, a harness that failed):
 * every reporter still ends, with no scenario and the reason as the verdict, so a CI page shows why
 * (the JUnit, JSON and HTML files are written; the github reporter annotates the reason).
 */
function cannotJudge(
  err: Error,
  reporting: Reporting,
  context: { rerun: JsonReport['rerun']; shard: JsonReport['shard']; seconds: number },
): void {
  const report: JsonReport = {
    rows: [],
    points: {},
    seconds: context.seconds,
    notes: [],
    rerun: context.rerun,
    shard: context.shard,
    scenarios: [],
    reruns: [],
  };
  const verdict: Verdict = { status: EXIT_STATUS.harness, damaged: [], harness: [err.message] };
  for (const r of reporting.reporters) r.onEnd?.({ report, verdict, failOn: reporting.failOn });
  for (const line of formatVerdict(verdict, reporting.failOn)) say(line);
  process.exitCode = verdict.status;
}

/** One line (or block) of the sweep's own output on stderr, made inert for CI: text from the runs may hold anything. */
function say(text: string): void {
  console.error(inertLines(text));
}

/** The names a config file is found by, in a folder, when no `--config` is given (as test runners find theirs). */
export const CONFIG_NAMES = [
  'crash-sweep.config.ts',
  'crash-sweep.config.mts',
  'crash-sweep.config.cts',
  'crash-sweep.config.js',
  'crash-sweep.config.mjs',
  'crash-sweep.config.cjs',
];

/** The config file of `dir`, by {@link CONFIG_NAMES}; without one, a usage error that says what to write. */
export function findConfig(dir: string): string {
  const found = CONFIG_NAMES.map((name) => path.join(dir, name)).find((file) => existsSync(file));
  if (found) return found;
  throw new UsageError(
    `no --config, and no ${CONFIG_NAMES[0]} in ${dir}: write one (defineSweep from 'crash-safe-agent': its workflows, activities, how to start a run and how to count what it did; docs/config.md), or name it with --config FILE`,
    usageOf(undefined),
  );
}

/**
 * A table a repository sweeps when no config is named: this repository's own (the agent loop and the
 * designs, `agent-sweep/crash-sweep.ts`). The published command has none: it sweeps a config.
 */
export interface SweepTable {
  rows: readonly SuiteRow[];
  /** The suite that sweeps the chosen rows. */
  suite(rows: SuiteRow[]): SuiteFactory;
  /** What it is, for the help. */
  describe: string;
  /** Its suite's own figures, for the summary line (default: `, NAME N` each). */
  formatStats?(stats: Record<string, number>): string;
}
