// What every command line shares: flag parsing with a usage line, and main() with one clear error line.
import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * Thrown when a command line cannot be understood; entry points print its message with the usage
 * line and exit 2.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(`${message}\nusage: ${usage}`);
    this.name = 'UsageError';
  }
}

/** `parseArgs` that turns unknown flags and missing values into a {@link UsageError} naming the usage line. */
export function parseCommandLine<T extends ParseArgsConfig['options']>(
  argv: string[],
  options: T,
  usage: string,
  allowPositionals = false,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: boolean; strict: true }>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message, usage);
  }
}

/** The items of a comma-separated flag or variable (`a, b,,c` is `a`, `b`, `c`). */
export function commaList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/** A flag's comma-separated whole numbers of at least 1 (`--turns 5,20`), or a `UsageError` naming the flag. */
export function wholeNumbers(text: string, flag: string, usage: string): number[] {
  return text.split(',').map((t) => {
    const n = Number(t);
    if (!Number.isSafeInteger(n) || n < 1)
      throw new UsageError(`bad --${flag} ${text}: whole numbers, comma-separated`, usage);
    return n;
  });
}

/** Parses a TCP port, 0 meaning "any free port". */
export function parsePort(text: string | undefined, usage: string, fallback?: number): number {
  if (text === undefined) {
    if (fallback !== undefined) return fallback;
    throw new UsageError('--port is required', usage);
  }
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`bad port ${JSON.stringify(text)}: use a whole number from 0 to 65535`, usage);
  }
  return port;
}

/**
 * Runs an entry point's `main`, printing a failure as one line and exiting non-zero: 2 for a bad
 * command line, 1 for anything else (or what `statusOf` says of it).
 */
/**
 * Text for a terminal or a CI log that no CI runner reads as a command: a line that would begin (after
 * its indent) with `::` (a GitHub Actions workflow command, `::add-mask::`, `::error`...) or `##[` (its
 * older form, and Azure's) is shown behind a `| `. What a run says (a failure's message, a stuck cause)
 * may hold such lines; the sweep's own output must not turn them into commands.
 */
export function inertLines(text: string): string {
  return text.replace(/\r(?!\n)/g, '\n').replace(/^([ \t]*)(::|##\[)/gm, '$1| $2');
}

export function runMain(main: () => Promise<void>, statusOf?: (err: Error) => number): void {
  // A reader that has read enough (`| head`) closes the pipe: that ends the command, and is no error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  main().catch((err: Error) => {
    console.error(inertLines(err.message));
    process.exit(err instanceof UsageError ? 2 : (statusOf?.(err) ?? 1));
  });
}

/**
 * Calls `close` once on the first SIGINT or SIGTERM, then exits. A second signal a second or more
 * later exits at once; one sooner is the same signal delivered twice (Ctrl-C reaches both `tsx` and
 * its child, and `tsx` relays it) and is ignored.
 */
export function closeOnSignal(close: () => Promise<void>): void {
  let closingSince = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closingSince) {
      if (Date.now() - closingSince > 1000) process.exit(1);
      return;
    }
    closingSince = Date.now();
    console.error(`${signal}: shutting down`);
    close().then(
      () => process.exit(0),
      (err: Error) => {
        console.error(err.message);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
