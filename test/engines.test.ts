// Every installed package runs on the Node this project names (package.json `engines`, the README):
// npm only warns (EBADENGINE) when one does not, and the package then fails at run time.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { ROOT } from './helpers/processes';

test('no package in the lock file needs a newer Node than the project supports', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[]; dev?: boolean }>;
  };
  // The oldest Node major the project names (">=20": every 20.x), which each package must run on.
  const oldest = `^${semver.minVersion(pkg.engines.node)!.major}.0.0`;
  const needNewer = Object.entries(lock.packages)
    .filter(([name, p]) => name !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node)
    .filter(([, p]) => !semver.intersects((p.engines as { node: string }).node, oldest))
    .map(([name, p]) => `${name}@${p.version} needs node ${(p.engines as { node: string }).node}`);
  expect(needNewer).toEqual([]);
});
