// Two clean runs that part run again (sweep/engine/clean-runs.ts): a busy machine can make a timer win
// its race once, and a row's first pass must not be planned from the run that lost it. The fixture's
// first clean run, and only it, takes another path.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configSuite } from '../sweep/config/config-suite';
import { runSweep } from '../sweep/engine/passes';
import { ROOT } from './helpers/processes';

test('a row whose two clean runs part runs its pair again, and the pair that agrees stands for the row', async () => {
  process.env.PARTS_ONCE_MARK = path.join(mkdtempSync(path.join(os.tmpdir(), 'parts-once-')), 'asked');
  const lines: string[] = [];
  const report = await runSweep({
    suite: configSuite(path.join(ROOT, 'test', 'fixtures', 'configs', 'parts-once.config.ts')),
    twice: false,
    scenario: '1',
    progress: (line) => lines.push(line),
  });
  expect(lines.filter((l) => l.includes('parted'))).toEqual([
    'clean runs: parts-once (at point 5): two clean runs parted, running them again (1 of 2)',
  ]);
  // The second pair agreed: no note of a parting, and the points are those of the path every later run takes.
  expect(report.notes.filter((n) => n.includes('part at point'))).toEqual([]);
  const started = report.points['parts-once'].filter((p) => p.name === 'activity.started').map((p) => p.detail);
  expect(started).toEqual(['whichPath', 'later']);
  expect(report.scenarios.map((s) => [s.id, s.error ?? null])).toEqual([['parts-once once 1', null]]);
}, 180_000);
