// The Node flags that load TypeScript through this package's tsx, and the entry files of the child
// processes it starts.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * Node flags that load TypeScript through tsx, resolved from this package rather than from the
 * working directory: a process started from a user's project (`npx crash-sweep`) finds our tsx too.
 */
export function tsxFlags(): string[] {
  return ['--import', pathToFileURL(require.resolve('tsx')).href];
}

/**
 * A child process's entry file, named as its source (`path.join(__dirname, 'worker-main.ts')`): that
 * file when the caller runs from the sources, its compiled `.js` beside the caller when it runs from
 * `dist/` (the package's compiled entry points, which a user's code imports).
 */
export function entryFile(source: string): string {
  return existsSync(source) ? source : source.replace(/\.ts$/, '.js');
}
