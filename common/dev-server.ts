// One way to start a Temporal dev server: `temporal server start-dev` as a process of ours, and waiting until it serves.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { devServerExecutable } from './temporal-cli';
import { searchAttributeFlags, type AnySearchAttributeKey } from './search-attribute-flags';

/** What a dev server of ours is: where it listens, where it keeps its state, what it registers. */
export interface DevServerSpec {
  /** Its gRPC port on 127.0.0.1. */
  port: number;
  /** The SQLite file it keeps its state in, which outlives the process (a restart on it resumes). Default: memory. */
  dbFile?: string;
  /** Where its Web UI listens. Default: none (`--headless`). */
  uiPort?: number;
  /** Search attributes it registers as it starts. */
  searchAttributes?: readonly AnySearchAttributeKey[];
  /** More flags (dynamic config values, SQLite pragmas, a codec endpoint for the UI). */
  flags?: readonly string[];
}

/**
 * The flags every dev server of ours starts with, as the SDK's test environment starts one: the
 * `default` namespace, errors only in its log, no version check (there is no internet), Updates on.
 */
const BASE_FLAGS = [
  '--namespace',
  'default',
  '--ip',
  '127.0.0.1',
  '--log-format',
  'pretty',
  '--log-level',
  'error',
  '--dynamic-config-value',
  'frontend.enableServerVersionCheck=false',
  '--dynamic-config-value',
  'frontend.enableUpdateWorkflowExecution=true',
  '--dynamic-config-value',
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
];

/** `temporal server start-dev`'s arguments for a spec. */
export function devServerArgs(spec: DevServerSpec): string[] {
  return [
    'server',
    'start-dev',
    '--port',
    String(spec.port),
    ...BASE_FLAGS,
    ...(spec.dbFile ? ['--db-filename', spec.dbFile] : []),
    ...(spec.uiPort ? ['--ui-port', String(spec.uiPort)] : ['--headless']),
    ...searchAttributeFlags(spec.searchAttributes ?? []),
    ...(spec.flags ?? []),
  ];
}

/**
 * Starts a dev server process (the local `temporal` CLI: `TEMPORAL_CLI`, `.tools/python`, `PATH`),
 * its stdout (a banner) discarded. It listens once {@link waitForDevServer} says so.
 */
export function spawnDevServer(spec: DevServerSpec, stderr: 'inherit' | 'pipe' | number = 'pipe'): ChildProcess {
  const stdio: StdioOptions = ['ignore', 'ignore', stderr];
  return spawn(devServerExecutable().path, devServerArgs(spec), { stdio });
}

/**
 * Waits until `ok()` says the server is there (its port takes connections, it answers for its
 * namespace), asking every 10 ms; throws with its log if the process exits first or `withinMs` passes.
 */
export async function waitForDevServer(
  proc: ChildProcess,
  what: string,
  ok: () => Promise<boolean>,
  { withinMs = 60_000, log = () => '' }: { withinMs?: number; log?: () => string } = {},
): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`the Temporal dev server exited as it started:\n${log()}`);
    if (await ok()) return;
    if (Date.now() > deadline)
      throw new Error(`the Temporal dev server did not ${what} within ${withinMs / 1000} s:\n${log()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
