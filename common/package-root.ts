// The folder this package is installed in (or this repository's root): the same from the sources and
// from their compiled copies in `dist/`, which sit one level deeper.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const NAME = 'crash-safe-agent';

/** The nearest folder above `from` whose package.json is this package's. */
export function packageRoot(from: string = __dirname): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === NAME)
      return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json of ${NAME} above ${from}`);
  }
}
