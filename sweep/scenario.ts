import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { KillTarget } from './crash-control';
import { TRIAGE_EFFECTS } from './effects';
import type { SeenPoint } from './generation';
import type { Variant } from './variants';

/** What the scripted triage job leaves and costs in a clean run: its writes, and three model calls. */
export const EXPECTED = {
  issues: TRIAGE_EFFECTS.filter((e) => e.kind === 'issue').length,
  comments: TRIAGE_EFFECTS.filter((e) => e.kind === 'comment').length,
  modelCalls: 3,
} as const;

/** Which pass a scenario belongs to: the clean run that records the points, or a run killed once or twice. */
export type Pass = 'clean' | 'once' | 'twice';

/** What the world looked like after a scenario, counted from the tracker, the model server and the person. */
export interface Outcome {
  issues: number;
  comments: number;
  dups: number;
  missing: number;
  asks: number;
  modelCalls: number;
  callsExtra: number;
  approvals: number;
}

/** One run of a variant, killed at zero, one or two points. */
export interface Scenario {
  /** Unique in a sweep: `VARIANT PASS LABEL`, where the label is the kill indexes (`3`, `3.7`). */
  id: string;
  variant: Variant;
  pass: Pass;
  /** Where each killed generation parks the run, in order. */
  kills: KillTarget[];
  /** The point each kill must land on (from the clean run, then from the first restart). */
  expected: SeenPoint[];
  /** Where each kill did land. */
  landed: SeenPoint[];
  runId: string;
  workflowId: string;
  repo: string;
  /** The task queue of the batch it ran in. */
  taskQueue?: string;
  /** Points the last generation (the one that finished the run) reached, in order. */
  finalPoints: SeenPoint[];
  outcome?: Outcome;
  error?: string;
  handle?: WorkflowHandle;
}

let scenarioCounter = 0;

/** A new scenario of a variant with a fresh run id. */
export function newScenario(variant: Variant, pass: Pass, label: string, kills: KillTarget[], expected: SeenPoint[]): Scenario {
  const runId = randomUUID();
  scenarioCounter += 1;
  const repo = `${variant.name}-${pass}-${scenarioCounter}`;
  return {
    id: `${variant.name} ${pass} ${label}`,
    variant,
    pass,
    kills,
    expected,
    landed: [],
    runId,
    workflowId: `sweep-${repo}-${runId.slice(0, 8)}`,
    repo,
    finalPoints: [],
  };
}
