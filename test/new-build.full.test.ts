// A deploy mid-run: the fixed order example, its worker replaced at each point by one of the next build.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configSuite } from '../sweep/config/config-suite';
import { runSweep } from '../sweep/engine/passes';
import { describeStuck } from '../sweep/judge/stuck';
import { formatTable } from '../sweep/report/table';
import { ROOT } from './helpers/processes';

describe('the new-build fault', () => {
  test('a deploy mid-run (examples/order/deploy.config.ts): a careless change sticks every run past it on non-determinism, unversioned or auto-upgrade; behind patched(), or pinned, none', async () => {
    const deploy = await runSweep({
      suite: configSuite(path.join(ROOT, 'examples', 'order', 'deploy.config.ts')),
      twice: false,
    });
    expect(deploy.scenarios.filter((s) => s.error).map((s) => `${s.id}: ${s.error}`)).toEqual([]);
    expect(formatTable(deploy.rows)).toBe(
      readFileSync(path.join(ROOT, 'testdata', 'order-deploy.txt'), 'utf8').trimEnd(),
    );
    const [careless, patched, pinned, autoUpgrade] = deploy.rows;
    expect(careless.stuck).toBeGreaterThan(0);
    expect(patched).toMatchObject({ stuck: 0, dups: 0, missing: 0 });
    // The same careless build, deployed as a Worker Deployment version: pinned runs finish on the
    // build that started them; auto-upgrade runs move to it and stick, their activity in flight too.
    expect(pinned).toMatchObject({ stuck: 0, dups: 0, missing: 0 });
    expect(autoUpgrade.stuck).toBe(careless.stuck);
    expect(autoUpgrade.missing).toBeGreaterThan(careless.missing);
    // The careless rows are the config's controls: their damage shows, so the sweep passes.
    expect(deploy.controls?.controls.map((c) => c.name)).toEqual([
      'order-deploy-careless',
      'order-deploy-auto-upgrade',
    ]);
    expect(deploy.controls?.failures).toEqual([]);
    const causes = deploy.scenarios.filter((s) => s.stuck).map((s) => describeStuck(s.stuck!));
    // The replay check: the clean runs' histories and those past the change fail on the careless build.
    expect(deploy.notes).toContainEqual(
      expect.stringMatching(
        /^replay check: 14 of the 16 histories of order-deploy-careless fail when its next build replays them \(\[TMPRL1100\] Nondeterminism error: /,
      ),
    );
    expect(deploy.notes).toContain(
      'replay check: 0 of the 16 histories of order-deploy-patched fail when its next build replays them',
    );
    expect(deploy.notes).toContainEqual(
      expect.stringMatching(
        /^replay check: \d+ of the 16 histories of order-deploy-pinned fail .*: deployed pinned, no run of the build before replays on it/,
      ),
    );
    expect(causes.every((c) => /^its workflow task keeps failing \(attempt \d+/.test(c))).toBe(true);
    expect(causes.some((c) => /\(attempt \d+, non-determinism\): \[TMPRL1100\] Nondeterminism error/.test(c))).toBe(
      true,
    );
  }, 600_000);
});
