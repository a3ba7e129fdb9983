// A new build is deployed mid-run: the worker killed at a point is replaced by one running changed workflow code.
import type { Fault } from './fault';

/**
 * A deploy in the middle of a run, as a rolling deploy does it: the worker killed at each point is
 * replaced by one that runs the next build of the workflow code (and every generation after it does);
 * the run's history, written by the build before, is replayed by the new code. A change that is not
 * replay-safe makes the new worker's workflow task fail with a non-determinism error, again at every
 * attempt: the run sticks (`sweep/judge/stuck.ts` names the cause). A change behind `patched()`, or
 * none, goes on. The build is named by `build`; the suite's worker reads it from `CRASH_SWEEP_BUILD`
 * (the config suite: the row's `nextBuild`, bundled as the first build is). The runs are not versioned
 * (no Worker Versioning): the new build takes every run, as an unversioned deploy does.
 */
export function newBuild(build: string): Fault {
  return {
    name: `new-build:${build}`,
    kind: 'new-build',
    target: 'build',
    summary: 'the worker killed at the point is replaced by one running the next build of the workflow code',
    nextBuild: build,
  };
}

/** The environment variable that tells a suite's worker process which build to run (unset: the first). */
export const BUILD_ENV = 'CRASH_SWEEP_BUILD';
