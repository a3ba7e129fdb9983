// A scenario: one run of a row, killed at zero, one or two points.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { KillTarget } from '../worker/line-protocol';
import type { SeenPoint } from './generation';
import type { Outcome } from '../judge/counts';
import type { SuiteRow } from './suite';
import type { Stuck } from '../judge/stuck';

/** Which pass a scenario belongs to: the clean run that records the points, or a run killed once or twice. */
export type Pass = 'clean' | 'once' | 'twice';

/**
 * One run of a row, killed at zero, one or two points: its plan (which row, which kills, where they
 * must land, its ids), fixed when it is made. What its run did is a {@link ScenarioResult}, returned by
 * the batch that ran it (`runBatch`); the plan itself is never written.
 */
export interface Scenario {
  /** Unique in a sweep: `ROW PASS LABEL`. */
  readonly id: string;
  /** The kill indexes (`3`, `3.7`; `run` for a clean run). */
  readonly label: string;
  /** The row of the table it counts in. */
  readonly row: SuiteRow;
  readonly pass: Pass;
  /** Where each killed generation parks the run, in order. */
  readonly kills: readonly KillTarget[];
  /** The point each kill must land on (from the clean run, then from the first restart). */
  readonly expected: readonly SeenPoint[];
  readonly runId: string;
  readonly workflowId: string;
  /** A name unique in the sweep, for the run's own corner of a receiver (the agent's repository). */
  readonly tag: string;
  /**
   * The run this one follows: a second clean run starts once its first has ended, in the same batch
   * and so the same worker process, where it finds whatever the first left set up (`clean-twice.ts`).
   */
  readonly after?: Scenario;
}

/** What a scenario's run did: found by the batch that ran it, never written after it is returned. */
export interface ScenarioResult {
  /** Where each kill did land. */
  readonly landed: readonly SeenPoint[];
  /** The task queue of the batch it ran in. */
  readonly taskQueue?: string;
  /** Points the last generation (the one that finished the run) reached, in order. */
  readonly finalPoints: readonly SeenPoint[];
  readonly outcome?: Outcome;
  /** How its run ended: `completed`, or `failed: <what its workflow threw>`. */
  readonly end?: string;
  /** The end its row's clean run had, when this run ended otherwise (`judge/other-ends.ts`). */
  readonly otherEnd?: { readonly expected: string };
  /** Its run could never finish (an activity kept failing after its last restart): why. */
  readonly stuck?: Stuck;
  /**
   * What the engine did to the run at its kills, one line each, for rows with an operation
   * (a fault's `atKill`): `reset to event 9 (last-task)`, `failed for its retry policy`, or why it
   * did nothing.
   */
  readonly operations?: readonly string[];
  /** Why the run does not count (a kill that did not land, an end no kill explains): it runs again. */
  readonly error?: string;
  /**
   * A clean run's workflow task that failed, which no kill explains and no run again mends (its code
   * threw, or its bundle lacks what a module needs): what failed, where. The sweep stops on it.
   */
  readonly taskFailure?: string;
  /** The client of the Temporal server it ran on (the sweep's own, or one the sweep kills). */
  readonly client?: Client;
}

/** A scenario and what its run did: what the engine returns, and what the judges and reports read. */
export type RanScenario = Scenario & ScenarioResult;

let scenarioCounter = 0;

/** A new scenario of a row with a fresh run id (following `after`, for a second clean run). */
export function newScenario(
  row: SuiteRow,
  pass: Pass,
  label: string,
  kills: readonly KillTarget[],
  expected: readonly SeenPoint[],
  after?: Scenario,
): Scenario {
  const runId = randomUUID();
  scenarioCounter += 1;
  const tag = `${row.name}-${pass}-${scenarioCounter}`;
  return {
    id: `${row.name} ${pass} ${label}`,
    label,
    row,
    pass,
    kills,
    expected,
    runId,
    workflowId: `sweep-${tag}-${runId.slice(0, 8)}`,
    tag,
    ...(after ? { after } : {}),
  };
}
