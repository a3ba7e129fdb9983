// The sweep's faults, one file each, in one list; and what the engine asks of a row's faults.
import { activityOperation } from './activity-operation';
import { cancel } from './cancel';
import type { Fault, Tolerance, WithFaults } from './fault';
import { newBuild } from './new-build';
import { partition } from './partition';
import { receiverDies } from './receiver-dies';
import { reset } from './reset';
import { retry } from './retry';
import { serverDies } from './server-dies';
import { slowReceiver } from './slow-receiver';
import { terminate } from './terminate';
import { throwAtPoint } from './throw-at-point';
import { workerDies } from './worker-dies';

export type { BatchOfFault, Fault, FaultTarget, KilledRun, Tolerance, WithFaults } from './fault';
export type { ReceiverDeath } from './receiver-dies';
export type { Lost } from './partition';
export type { ServerDeath } from './server-dies';
export { receiverDeathOf } from './receiver-dies';
export { declaredPartitionOf, partitionOf } from './partition';
export { SlowCommits, slowReceiverOf } from './slow-receiver';
export { BUILD_ENV, DEPLOYMENT_ENV, FIRST_BUILD_ID, VERSIONING_ENV, isVersioning } from './new-build';
export type { Versioning } from './new-build';
export type { ActivityOperation } from './activity-operation';
export { activityOperationOf, operateOnStuckCall } from './activity-operation';
export {
  activityOperation,
  cancel,
  newBuild,
  partition,
  receiverDies,
  reset,
  retry,
  serverDies,
  slowReceiver,
  terminate,
  throwAtPoint,
  workerDies,
};

/**
 * Every fault the sweep knows, in the order the docs list them: one example of each kind (a kind with
 * settings is shown with one of them). "Add a fault" is a new file in this folder, an entry here (and
 * in NAMEABLE_FAULTS, if a config row may name it), and a row that names it.
 */
export const FAULTS: readonly Fault[] = [
  workerDies,
  serverDies('worker-dies'),
  serverDies('worker-survives'),
  receiverDies({ receiver: 'tracker', at: 'received' }),
  receiverDies({ receiver: 'tracker', at: 'committed' }),
  receiverDies({ receiver: 'mcp' }),
  receiverDies({ receiver: 'declared', name: 'RECEIVER' }),
  slowReceiver({ activities: ['runTool'] }),
  slowReceiver({ activities: ['ACTIVITY'], receiver: 'RECEIVER' }),
  partition({ lost: 'request', activities: ['runTool'] }),
  partition({ lost: 'reply', activities: ['runTool'] }),
  partition({ lost: 'request', activities: ['ACTIVITY'], receiver: 'RECEIVER' }),
  partition({ lost: 'reply', activities: ['ACTIVITY'], receiver: 'RECEIVER' }),
  throwAtPoint('tracker.accepted'),
  reset('last-task'),
  reset('first-task'),
  retry,
  cancel,
  terminate,
  activityOperation({ operation: 'pause' }),
  activityOperation({ operation: 'reset' }),
  activityOperation({ operation: 'options' }),
  newBuild('next'),
  newBuild('next', 'pinned'),
  newBuild('next', 'auto-upgrade'),
];

/** Why a config row may not name a fault the sweep knows, by its kind. */
const NOT_NAMEABLE: Record<string, string> = {
  'new-build': 'a row names its next build with nextBuild',
};

/** A receiver a config declares, as its faults' names need it: its name, and the activity types that call it. */
export interface NamedReceiver {
  name: string;
  activities: readonly string[];
}

/** A fault a config row may name: the forms of its name, and the fault a name's setting makes (`null`: a bad setting). */
interface NameableFault {
  kind: string;
  /** Its names as the docs and the errors show them (`reset:last-task`, `throw-at-point:POINT`). */
  forms: readonly string[];
  /** The fault, given the setting after the colon and the receivers the config declares. */
  make(setting: string | undefined, receivers: readonly NamedReceiver[]): Fault | null;
}

/**
 * The faults a config row may name (`rows[].faults`), in one list: `faultNamed` makes them from it,
 * its errors show their forms, and docs/config.md lists the same forms (a test holds it to this).
 */
export const NAMEABLE_FAULTS: readonly NameableFault[] = [
  { kind: 'worker-dies', forms: ['worker-dies'], make: (s) => (s === undefined ? workerDies : null) },
  {
    kind: 'server-dies',
    forms: ['server-dies:worker-dies', 'server-dies:worker-survives'],
    make: (s) => (s === 'worker-dies' || s === 'worker-survives' ? serverDies(s) : null),
  },
  {
    kind: 'receiver-dies',
    forms: ['receiver-dies:RECEIVER'],
    make: (s, receivers) =>
      s && receivers.some((r) => r.name === s) ? receiverDies({ receiver: 'declared', name: s }) : null,
  },
  {
    kind: 'slow-receiver',
    forms: ['slow-receiver:RECEIVER', 'slow-receiver:ACTIVITY[,ACTIVITY]'],
    make: (s, receivers) => {
      if (!s) return null;
      const declared = receivers.find((r) => r.name === s);
      // A declared receiver the engine holds: it strikes clean runs too, and each run waits out a timeout.
      if (declared)
        return slowReceiver({
          activities: declared.activities,
          receiver: declared.name,
          damagedWithoutKills: true,
          firstPassOnly: true,
        });
      return slowReceiver({ activities: s.split(',') });
    },
  },
  {
    kind: 'partition',
    forms: ['partition:RECEIVER:request-lost', 'partition:RECEIVER:reply-lost'],
    make: (s, receivers) => {
      const [, name, lost] = /^(.+):(request|reply)-lost$/.exec(s ?? '') ?? [];
      const declared = receivers.find((r) => r.name === name);
      return declared
        ? partition({
            lost: lost as 'request' | 'reply',
            activities: declared.activities,
            receiver: declared.name,
            damagedWithoutKills: true,
          })
        : null;
    },
  },
  {
    kind: 'activity-operation',
    forms: ['activity-operation:pause', 'activity-operation:reset', 'activity-operation:options'],
    make: (s) =>
      s === 'pause' || s === 'reset' || s === 'options'
        ? activityOperation({ operation: s, damagedWithoutKills: true })
        : null,
  },
  {
    kind: 'reset',
    forms: ['reset:last-task', 'reset:first-task'],
    make: (s) => (s === 'last-task' || s === 'first-task' ? reset(s) : null),
  },
  { kind: 'retry', forms: ['retry'], make: (s) => (s === undefined ? retry : null) },
  { kind: 'cancel', forms: ['cancel'], make: (s) => (s === undefined ? cancel : null) },
  { kind: 'terminate', forms: ['terminate'], make: (s) => (s === undefined ? terminate : null) },
  { kind: 'throw-at-point', forms: ['throw-at-point:POINT'], make: (s) => (s ? throwAtPoint(s) : null) },
];

/**
 * The faults a config row may name, by name, given the receivers the config declares, with a clear
 * error for any other (the forms of {@link NAMEABLE_FAULTS}).
 */
export function faultNamed(name: string, receivers: readonly NamedReceiver[] = []): Fault {
  const [kind, setting] = name.split(/:(.*)/s, 2) as [string, string | undefined];
  const nameable = NAMEABLE_FAULTS.find((n) => n.kind === kind);
  const fault = nameable?.make(setting, receivers);
  const forms = `faults a config row may name: ${NAMEABLE_FAULTS.flatMap((n) => n.forms).join(', ')}`;
  if (!fault && !nameable && FAULTS.some((f) => f.kind === kind))
    throw new Error(`fault ${JSON.stringify(name)} is not one a config row may name: ${NOT_NAMEABLE[kind]} (${forms})`);
  if (!fault && (kind === 'receiver-dies' || (kind === 'partition' && /-lost$/.test(setting ?? ''))))
    throw new Error(
      `fault ${JSON.stringify(name)} names no receiver the config declares (${
        receivers.length > 0
          ? `its receivers: ${receivers.map((r) => r.name).join(', ')}`
          : 'it declares none: receivers'
      })`,
    );
  if (!fault) throw new Error(`unknown fault ${JSON.stringify(name)} (${forms})`);
  return fault;
}

/** What a row's faults let its runs do (their tolerances together). */
export function toleranceOf(row: WithFaults): Required<Tolerance> {
  const all = (row.faults ?? []).map((f) => f.tolerates ?? {});
  return {
    retries: all.some((t) => t.retries),
    slowActivities: all.flatMap((t) => t.slowActivities ?? []),
    damagedWithoutKills: all.some((t) => t.damagedWithoutKills),
  };
}

/** Whether a row is swept in the first pass only: it says so, or one of its faults does. */
export function firstPassOnly(row: WithFaults): boolean {
  return !!row.firstPassOnly || (row.faults ?? []).some((f) => f.firstPassOnly);
}

/** Whether the Temporal server dies at the row's kills, and with the worker or not. */
export function serverDeathOf(row: WithFaults): Fault['serverDies'] {
  return row.faults?.find((f) => f.serverDies)?.serverDies;
}

/** The build the row's generations run after its first kill (`new-build.ts`), if a new one. */
export function nextBuildOf(row: WithFaults): string | undefined {
  return row.faults?.find((f) => f.nextBuild)?.nextBuild;
}

/** Whether the row's runs stay on the build that started them (a pinned deploy: `new-build.ts`). */
export function pinsRuns(row: WithFaults): boolean {
  return row.faults?.some((f) => f.pinsRuns) ?? false;
}

/** The row's faults that act on a batch as a whole (its workers' environment, before its runs, after a kill). */
export function batchFaultsOf(row: WithFaults): Fault[] {
  return (row.faults ?? []).filter((f) => f.workerEnv || f.beforeRuns || f.afterKill);
}

/** The row's fault that acts on its runs at each kill (a reset, a retry, a cancel, a terminate), if any. */
export function runFaultOf(row: WithFaults): Fault | undefined {
  return row.faults?.find((f) => f.atKill);
}
