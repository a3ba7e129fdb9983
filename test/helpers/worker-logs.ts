// In-process workers log to .test-logs/<test file>.log, not the console.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ROOT } from './processes';

/**
 * Jest setup (every test file): the SDK's logs of in-process workers go to `.test-logs/FILE.log`
 * instead of the console, so a green run prints test results, not pages of stack traces from
 * activities that fail on purpose. `.ci/run` prints the end of the log of a test file that failed.
 */
const testPath = expect.getState().testPath ?? 'unknown';
const dir = path.join(ROOT, '.test-logs');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `${path.basename(testPath)}.log`);
writeFileSync(file, '');

/** The test file's log, for in-process workers and for activities run in a `MockActivityEnvironment` (`{ logger: testLog }`). */
export const testLog = new DefaultLogger('INFO', ({ level, message, meta, timestampNanos }) => {
  const at = new Date(Number(timestampNanos / 1_000_000n)).toISOString();
  appendFileSync(
    file,
    `${at} [${level}] ${message}${meta ? ` ${inspect(meta, { depth: 4, breakLength: Infinity })}` : ''}\n`,
  );
});

Runtime.install({ logger: testLog });
