import { writeFileSync } from 'node:fs';
import { parseCommandLine, runMain, UsageError } from '../common/cli';
import { formatTable } from './report';
import { DEFAULT_BATCH, DEFAULT_LANES, runSweep } from './run-sweep';
import { formatTimings } from './timings';
import { selectVariants } from './variants';

const USAGE = 'npm run sweep -- [--variant NAME,...] [--once] [--json FILE] [--batch N] [--lanes N]';

/**
 * `npm run sweep`: the crash sweep. Progress goes to stderr, the table to stdout; `--json` writes
 * every scenario. Exits 1 if any kill did not land or any run did not finish.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      variant: { type: 'string' },
      once: { type: 'boolean', default: false },
      json: { type: 'string' },
      batch: { type: 'string', default: String(DEFAULT_BATCH) },
      lanes: { type: 'string', default: String(DEFAULT_LANES) },
    },
    USAGE,
  );
  let variants;
  try {
    variants = selectVariants(values.variant);
  } catch (err) {
    throw new UsageError((err as Error).message, USAGE);
  }
  const batchSize = Number(values.batch);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new UsageError(`bad --batch ${values.batch}: a whole number of scenarios`, USAGE);

  const lanes = Number(values.lanes);
  if (!Number.isInteger(lanes) || lanes < 1) throw new UsageError(`bad --lanes ${values.lanes}: a whole number of batches in flight`, USAGE);

  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
  console.error(`crash sweep: ${variants.map((v) => v.name).join(', ')}${values.once ? ' (first pass only)' : ''}`);
  const report = await runSweep({
    variants,
    twice: !values.once,
    batchSize,
    lanes,
    progress: (line) => console.error(`[${elapsed()}] ${line}`),
  });

  console.log(formatTable(report.rows));
  const total = report.scenarios.length;
  console.error(
    `${total} scenarios in ${report.seconds.toFixed(1)} s (${(total / report.seconds).toFixed(1)} scenarios/s), ${report.generations} worker generations, ${report.mcpKills} MCP server kills cutting off ${report.mcpWrites} writes`,
  );
  console.error(formatTimings(report));
  if (values.json) {
    const scenarios = report.scenarios.map((s) => ({
      id: s.id,
      variant: s.variant.name,
      pass: s.pass,
      runId: s.runId,
      workflowId: s.workflowId,
      killedAt: s.landed,
      expected: s.expected,
      restartPoints: s.finalPoints,
      outcome: s.outcome ?? null,
      error: s.error ?? null,
    }));
    writeFileSync(values.json, JSON.stringify({ rows: report.rows, points: report.points, scenarios }, null, 2));
    console.error(`wrote ${total} scenarios to ${values.json}`);
  }
  const failed = report.scenarios.filter((s) => s.error);
  if (failed.length > 0) {
    for (const s of failed.slice(0, 20)) console.error(`error: ${s.id}: ${s.error}`);
    throw new Error(`${failed.length} scenario(s) failed: the table above does not count them`);
  }
}

runMain(main);
