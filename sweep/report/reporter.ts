// Reporters, as Playwright's: optional hooks a sweep calls, chosen on the command line (`--reporter`).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DamageColumn } from '../judge/controls';
import { formatSummary, type Verdict } from '../judge/verdict';
import { githubAnnotations } from './github';
import { htmlReport } from './html';
import type { JsonReport } from './json';
import { junitXml } from './junit';
import { formatTable } from './table';

/** What a reporter gets once the sweep has ended. */
export interface SweepEnd {
  /** Every row and scenario, as `--json` writes them. */
  report: JsonReport;
  verdict: Verdict;
  /** The columns the sweep fails on (`--fail-on`). */
  failOn: readonly DamageColumn[];
}

/** A reporter: each hook optional, called in order. */
export interface Reporter {
  /** Before the clean runs: the rows the sweep will run, by name. */
  onBegin?(rows: readonly string[]): void;
  /** Once the sweep has ended. */
  onEnd?(end: SweepEnd): void;
}

/** The built-in reporters, by the name `--reporter` takes. */
export const REPORTERS = {
  /** The table for people, on stdout (the default), and a last line: the scenarios, rows and verdict. */
  table: () => ({
    onEnd: ({ report, verdict }) =>
      console.log(
        `${formatTable(report.rows)}\n\n${formatSummary(report.scenarios.length, report.rows.length, verdict)}`,
      ),
  }),
  /** Every scenario as data: to FILE, or stdout. */
  json: (file) => ({ onEnd: ({ report }) => write(file, JSON.stringify(report, null, 2), 'every scenario') }),
  /** A page that shows every scenario, one self-contained file: FILE is required. */
  html: (file) => ({ onEnd: ({ report }) => write(file, htmlReport(report), 'the report') }),
  /** JUnit XML, a test case per scenario: to FILE, or stdout. */
  junit: (file) => ({
    onEnd: ({ report, verdict, failOn }) => write(file, junitXml(report, verdict, failOn), 'JUnit XML'),
  }),
  /** GitHub Actions annotations, a line per finding, on stdout. */
  github: () => ({
    onEnd: ({ report, verdict, failOn }) => console.log(githubAnnotations(report, verdict, failOn).join('\n')),
  }),
} satisfies Record<string, (file: string | undefined) => Reporter>;

export type ReporterName = keyof typeof REPORTERS;

/** Reporters that need a file to write to. */
const NEEDS_FILE: ReadonlySet<ReporterName> = new Set(['html']);
/** Reporters that take no file: they write lines on stdout. */
const NO_FILE: ReadonlySet<ReporterName> = new Set(['table', 'github']);

function write(file: string | undefined, text: string, what: string): void {
  if (file === undefined) {
    console.log(text);
    return;
  }
  writeFileSync(file, text);
  console.error(`wrote ${what} to ${file}`);
}

/** Whether a `--reporter` item names a module of the user's rather than a built-in reporter. */
const isModulePath = (name: string) => /^(\.{1,2}\/|\/)|\.(ts|mts|cts|js|mjs|cjs)$/.test(name);

/**
 * A reporter of the user's, as Playwright takes one: a module (`./my-reporter.ts`, resolved from the
 * working directory) whose default export is a class of the {@link Reporter} hooks, constructed with
 * FILE when one is given (`./my-reporter.ts=out.txt`). Throws, saying why, on a module that does not
 * load or does not export such a class.
 */
export function loadReporter(modulePath: string, file: string | undefined, cwd = process.cwd()): Reporter {
  const resolved = path.resolve(cwd, modulePath);
  let loaded: { default?: unknown };
  try {
    // Through the command's tsx, a reporter written in TypeScript loads too.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(resolved) as { default?: unknown };
  } catch (err) {
    throw new Error(`reporter ${modulePath} does not load: ${(err as Error).message.split('\n')[0]}`);
  }
  const Made = loaded.default ?? loaded;
  if (typeof Made !== 'function')
    throw new Error(
      `reporter ${modulePath} has no default export of a class (export default class implements Reporter)`,
    );
  let reporter: Record<string, unknown>;
  try {
    reporter = new (Made as new (file?: string) => Record<string, unknown>)(file);
  } catch (err) {
    throw new Error(`reporter ${modulePath} could not be made: ${(err as Error).message}`);
  }
  const hooks = ['onBegin', 'onEnd'] as const;
  const wrong = hooks.filter((h) => reporter[h] !== undefined && typeof reporter[h] !== 'function');
  if (wrong.length > 0) throw new Error(`reporter ${modulePath}: ${wrong.join(' and ')} must be a function`);
  if (!hooks.some((h) => typeof reporter[h] === 'function'))
    throw new Error(
      `reporter ${modulePath} has no hook: a reporter is an object of onBegin(rows) and onEnd(end), each optional but one`,
    );
  return reporter as Reporter;
}

/**
 * The reporters `--reporter` names: `NAME` or `NAME=FILE`, comma-separated (`table,junit=sweep.xml`),
 * a built-in's name or a module path of the user's (see {@link loadReporter}). Throws, naming the
 * reporters, on an unknown name, a file where none is taken or none where one is needed, or two
 * reporters writing stdout that a program would read (json or junit without a file, with another).
 */
export function reportersNamed(items: readonly string[]): Reporter[] {
  const names = Object.keys(REPORTERS) as ReporterName[];
  const split = items.map((item) => {
    const [name, ...rest] = item.split('=');
    return { name, file: rest.length > 0 ? rest.join('=') : undefined };
  });
  const builtIn = split.filter((p) => !isModulePath(p.name));
  const parsed = builtIn.map(({ name, file }) => {
    if (!names.includes(name as ReporterName))
      throw new Error(
        `unknown reporter ${JSON.stringify(name)} (reporters: ${names.join(', ')}, or a module path: ./my-reporter.ts; NAME or NAME=FILE)`,
      );
    const known = name as ReporterName;
    if (file === '') throw new Error(`reporter ${known}= names no file`);
    if (file !== undefined && NO_FILE.has(known))
      throw new Error(`reporter ${known} writes to stdout: it takes no file`);
    if (file === undefined && NEEDS_FILE.has(known)) throw new Error(`reporter ${known} needs a file: ${known}=FILE`);
    return { name: known, file };
  });
  const dataOnStdout = parsed.filter((p) => !NO_FILE.has(p.name) && p.file === undefined);
  if (dataOnStdout.length > 0 && split.length > 1)
    throw new Error(
      `reporter ${dataOnStdout[0].name} without a file writes to stdout, which no other reporter may share: ${dataOnStdout[0].name}=FILE`,
    );
  return split.map(({ name, file }) =>
    isModulePath(name) ? loadReporter(name, file) : REPORTERS[name as ReporterName](file),
  );
}
