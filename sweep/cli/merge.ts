// `crash-sweep merge A.json B.json ...`: the shards of one sweep (`--shard K/N`) joined into its table,
// and into one JSON report and one HTML page, as a single sweep would have written them.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseCommandLine, UsageError } from '../../common/cli';
import { formatTable } from '../report/table';
import { htmlReport } from '../report/html';
import { formatReruns } from '../report/json';
import { mergeShards, parseShardReport } from '../report/merge';
import { formatControls, judgeControls } from '../judge/controls';

export const MERGE_USAGE = 'npx crash-sweep merge SHARD.json... [--json FILE] [--html FILE]';

/** Prints the merged table on stdout; exits 1 (by throwing) if any scenario of any shard erred or a control showed no damage, as the sweep does. */
export async function mergeCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(
    argv,
    { json: { type: 'string' }, html: { type: 'string' }, help: { type: 'boolean', default: false } },
    MERGE_USAGE,
    true,
  );
  if (values.help) {
    console.log(
      `usage: ${MERGE_USAGE}\n\nJoins the --json reports of the shards of one sweep (npx crash-sweep --shard K/N --json FILE,\none for each K) into the table, JSON report and HTML page of the whole sweep.`,
    );
    return;
  }
  if (positionals.length === 0) throw new UsageError('merge needs the JSON report of every shard', MERGE_USAGE);
  const reports = positionals.map((name) => {
    let text: string;
    try {
      text = readFileSync(name, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${name}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return { name, report: parseShardReport(text, name) };
  });
  const merged = mergeShards(reports);
  console.log(formatTable(merged.rows));
  console.error(`${merged.scenarios.length} scenarios from ${reports.length} shards`);
  if (merged.reruns.length > 0) console.error(formatReruns(merged.reruns));
  if (values.json) {
    writeFileSync(values.json, JSON.stringify(merged, null, 2));
    console.error(`wrote ${merged.scenarios.length} scenarios to ${values.json}`);
  }
  if (values.html) {
    writeFileSync(values.html, htmlReport(merged));
    console.error(`wrote the report to ${values.html}`);
  }
  // The whole sweep is here again: its controls are judged as a single sweep's are.
  const controls = judgeControls(merged.rows);
  console.error(formatControls(controls));
  for (const line of controls.failures) console.error(line);
  const failed = merged.scenarios.filter((s) => s.error);
  for (const s of failed.slice(0, 20)) console.error(`error: ${s.id}: ${s.error}`);
  if (failed.length > 0) throw new Error(`${failed.length} scenario(s) failed: the table above does not count them`);
  if (controls.failures.length > 0)
    throw new Error(
      `${controls.failures.length} control row(s) showed no damage: the table above cannot be trusted to see any`,
    );
}
