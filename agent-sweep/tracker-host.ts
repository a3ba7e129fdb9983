// A tracker process the sweep kills: started on its SQLite file, killed at its points and started again on its port.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ReceiverHost } from '../sweep/hosts/receiver-host';
import type { TrackerCrashPlan } from './tracker-main';

const ROOT = path.resolve(__dirname, '..');

/**
 * A tracker as a process of its own under the harness: `agent-sweep/tracker-main.ts` on `DIR/NAME.db`,
 * which holds each write the first time it reaches `point` (`parked` holds them by the run's repo). The
 * harness SIGKILLs it when it chooses and starts the next one on the same file, behind a proxy that
 * keeps its port (see {@link ReceiverHost}).
 */
export class TrackerHost extends ReceiverHost {
  /** Its SQLite file, which outlives every process (open a `Store` on it once it has started, to count). */
  readonly db: string;

  constructor(name: string, dir: string, options: { point: TrackerCrashPlan['point']; keyless?: boolean }) {
    const planFile = path.join(dir, `${name}-plan.json`);
    const db = path.join(dir, `${name}.db`);
    super({
      name: `the tracker process ${name}`,
      args: (port) => [
        '--import',
        'tsx',
        path.join(ROOT, 'agent-sweep', 'tracker-main.ts'),
        '--port',
        String(port),
        '--db',
        db,
        ...(options.keyless ? ['--keyless'] : []),
      ],
      env: { TRACKER_CRASH_PLAN: planFile, TRACKER_STANDBY: '1' },
      cwd: ROOT,
      listening: /tracker listening on (http:\/\/\S+)/,
      behindProxy: true,
    });
    this.db = db;
    const plan: TrackerCrashPlan = { point: options.point, stateFile: path.join(dir, `${name}-held.txt`) };
    // Written now, read by each process when it starts serving.
    writeFileSync(planFile, JSON.stringify(plan));
  }
}
