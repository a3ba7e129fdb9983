// Every installed package runs on the Node this project names (package.json `engines`, the README):
// npm only warns (EBADENGINE) when one does not, and the package then fails at run time. One family is
// let through, named here with why: AI SDK 7 and Temporal's AI SDK plugin ask for Node 22, are
// development dependencies only (the adapter's tests, the AI SDK example, the bench) and the user's own
// choice in a project (`ai` is an optional peer), and run here on Node 20.19 and later, which loads
// their ES modules with `require`: the tests that use them are the proof, on every CI run.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { ROOT } from './helpers/processes';

/** Packages asking a newer Node that the tests run on this one: by name, as the lock file's path ends. */
const ASKS_NEWER_RUNS_HERE = /(^|\/)node_modules\/(ai|@ai-sdk\/[^/]+|@temporalio\/ai-sdk)$/;

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; dev?: boolean }>;
};
// The oldest Node the project names (">=20.19"), which each package must run on.
const oldest = `>=${semver.minVersion(pkg.engines.node)!.version} <${semver.minVersion(pkg.engines.node)!.major + 1}.0.0`;
const needNewer = Object.entries(lock.packages)
  .filter(([name, p]) => name !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node)
  .filter(([, p]) => !semver.intersects((p.engines as { node: string }).node, oldest));

test('no package in the lock file needs a newer Node than the project supports, but the AI SDK 7 family, in development only', () => {
  const shown = ([name, p]: (typeof needNewer)[number]) =>
    `${name}@${p.version} needs node ${(p.engines as { node: string }).node}`;
  expect(needNewer.filter(([name]) => !ASKS_NEWER_RUNS_HERE.test(name)).map(shown)).toEqual([]);
  // Those let through are development dependencies: no user of the package gets them from it.
  expect(needNewer.filter(([, p]) => !p.dev).map(shown)).toEqual([]);
});
