// A config's own receiver in the fault model: the order example's shop, hosted by the sweep, dies after it acts, is slow, or is cut off.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configSuite } from '../sweep/config/config-suite';
import { runSweep } from '../sweep/engine/passes';
import { formatTable } from '../sweep/report/table';
import { ROOT } from './helpers/processes';

const sweepOf = (file: string) =>
  runSweep({ suite: configSuite(path.join(ROOT, 'examples', 'order', file)), twice: false });

describe('receiver faults on a receiver a config declares', () => {
  test('the shop dies after it acts, holds the first write past the timeout, or the network loses it or its reply: without keys each repeats a write, with keys the shop remembers on disk none (testdata/order-receiver.txt)', async () => {
    const naive = await sweepOf('receiver-naive.config.ts');
    const fixed = await sweepOf('receiver.config.ts');
    for (const report of [naive, fixed])
      expect(report.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
    expect(formatTable([...naive.rows, ...fixed.rows])).toBe(
      readFileSync(path.join(ROOT, 'testdata', 'order-receiver.txt'), 'utf8').trimEnd(),
    );
    const [naiveDies, naiveSlow, naiveReplyLost] = naive.rows;
    // Every naive run repeats each of its three writes once per death: the clean run shows it too.
    expect(naiveDies.dups).toBeGreaterThanOrEqual(3 * naiveDies.once);
    // A held first write, or a lost reply, is acted on twice in every run.
    expect(naiveSlow.dups).toBeGreaterThanOrEqual(naiveSlow.once);
    expect(naiveReplyLost.dups).toBeGreaterThanOrEqual(naiveReplyLost.once);
    expect(naive.controls?.failures).toEqual([]);
    for (const row of fixed.rows) expect(row).toMatchObject({ dups: 0, missing: 0, stuck: 0 });
    // The shop died: once per write of every run of the row whose shop dies (two clean runs, then the scenarios).
    expect(naive.stats.receiverKills).toBeGreaterThan(0);
    expect(fixed.stats.receiverReplies).toBeGreaterThanOrEqual(3 * (fixed.rows[0].once + 2));
  }, 600_000);
});
