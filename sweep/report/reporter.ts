// Reporters, as Playwright's: optional hooks a sweep calls, chosen on the command line (`--reporter`).
import { writeFileSync } from 'node:fs';
import type { DamageColumn } from '../judge/controls';
import type { Verdict } from '../judge/verdict';
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
  /** The table for people, on stdout (the default). */
  table: () => ({ onEnd: ({ report }) => console.log(formatTable(report.rows)) }),
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

/**
 * The reporters `--reporter` names: `NAME` or `NAME=FILE`, comma-separated (`table,junit=sweep.xml`).
 * Throws, naming the reporters, on an unknown name, a file where none is taken or none where one is
 * needed, or two reporters writing stdout that a program would read (json or junit without a file, with another).
 */
export function reportersNamed(items: readonly string[]): Reporter[] {
  const names = Object.keys(REPORTERS) as ReporterName[];
  const parsed = items.map((item) => {
    const [name, ...rest] = item.split('=');
    const file = rest.length > 0 ? rest.join('=') : undefined;
    if (!names.includes(name as ReporterName))
      throw new Error(`unknown reporter ${JSON.stringify(name)} (reporters: ${names.join(', ')}; NAME or NAME=FILE)`);
    const known = name as ReporterName;
    if (file === '') throw new Error(`reporter ${known}= names no file`);
    if (file !== undefined && NO_FILE.has(known))
      throw new Error(`reporter ${known} writes to stdout: it takes no file`);
    if (file === undefined && NEEDS_FILE.has(known)) throw new Error(`reporter ${known} needs a file: ${known}=FILE`);
    return { name: known, file };
  });
  const dataOnStdout = parsed.filter((p) => !NO_FILE.has(p.name) && p.file === undefined);
  if (dataOnStdout.length > 0 && parsed.length > 1)
    throw new Error(
      `reporter ${dataOnStdout[0].name} without a file writes to stdout, which no other reporter may share: ${dataOnStdout[0].name}=FILE`,
    );
  return parsed.map(({ name, file }) => REPORTERS[name](file));
}
