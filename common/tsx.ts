// The Node flags that load TypeScript through this package's tsx, for the child processes it starts.
import { pathToFileURL } from 'node:url';

/**
 * Node flags that load TypeScript through tsx, resolved from this package rather than from the
 * working directory: a process started from a user's project (`npx crash-sweep`) finds our tsx too.
 */
export function tsxFlags(): string[] {
  return ['--import', pathToFileURL(require.resolve('tsx')).href];
}
