// `crash-sweep merge A.json B.json ...`: the shards of one sweep (`--shard K/N`) joined into its table,
// and into one JSON report and one HTML page, as a single sweep would have written them.
import { readFileSync } from 'node:fs';
import { inertLines, parseCommandLine, UsageError } from '../../common/cli';
import { formatReruns } from '../report/json';
import { MergeError, mergeShards, parseShardReport } from '../report/merge';
import { formatControls, judgeControls } from '../judge/controls';
import { formatVerdict } from '../judge/verdict';
import { REPORTING_FLAGS, REPORTING_HELP, REPORTING_USAGE, reportEnd, reportingOf } from './reporting';

export const MERGE_USAGE = `npx crash-sweep merge SHARD.json... ${REPORTING_USAGE}`;

/**
 * Reports the merged sweep as the sweep would have (the table on stdout by default), and sets the
 * exit status the sweep would have had: the whole sweep is here, so its controls are judged too.
 */
export async function mergeCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(
    argv,
    { ...REPORTING_FLAGS, help: { type: 'boolean', default: false } },
    MERGE_USAGE,
    true,
  );
  if (values.help) {
    console.log(
      `usage: ${MERGE_USAGE}\n\nJoins the --json reports of the shards of one sweep (npx crash-sweep --shard K/N --json FILE,\none for each K) into the table, JSON report and HTML page of the whole sweep.\n${REPORTING_HELP}`,
    );
    return;
  }
  if (positionals.length === 0) throw new UsageError('merge needs the JSON report of every shard', MERGE_USAGE);
  const reports = positionals.map((name) => {
    let text: string;
    try {
      text = readFileSync(name, 'utf8');
    } catch (err) {
      throw new MergeError(`cannot read ${name}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return { name, report: parseShardReport(text, name) };
  });
  const merged = mergeShards(reports);
  // A sweep of a config fails on damage by default; this repository's own table does not (as the sweep).
  let reporting;
  try {
    reporting = reportingOf(values, merged.rerun.config !== undefined);
  } catch (err) {
    throw new UsageError((err as Error).message, MERGE_USAGE);
  }
  console.error(inertLines(`${merged.scenarios.length} scenarios from ${reports.length} shards`));
  if (merged.reruns.length > 0) console.error(inertLines(formatReruns(merged.reruns)));
  const controls = judgeControls(merged.rows);
  console.error(inertLines(formatControls(controls)));
  const verdict = reportEnd(merged, controls, reporting);
  for (const s of merged.scenarios.filter((x) => x.error).slice(0, 20))
    console.error(inertLines(`error: ${s.id}: ${s.error}`));
  for (const line of formatVerdict(verdict, reporting.failOn)) console.error(inertLines(line));
  process.exitCode = verdict.status;
}
