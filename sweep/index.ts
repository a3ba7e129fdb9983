/**
 * The crash sweep as a library: what a user's project imports (`exports` in package.json).
 *
 * - `defineSweep` and its types: a `crash-sweep.config.ts` for `npx crash-sweep --config FILE`;
 * - `crashSweepPlugin`: the worker plugin that records crash points in any worker;
 * - `crashPoint`: a hand-placed point, finer than the automatic ones;
 * - `runSweep` and `configSuite`: the engine, to run a sweep from code (`shard` for one share of it);
 * - `jsonReport` and `mergeShards`: a sweep's report as data, and the shards' reports joined into one;
 * - `ReceiverHost` and `ReceiverKills`: a receiver process a suite kills mid-request and restarts on its port.
 */
export { crashPoint } from '../common/crash-points';
export { defineSweep } from './config/define-sweep';
export { loadSweepConfig, ConfigError } from './config/load-config';
export type { SweepConfig, StartContext, CheckContext, CheckResult, PersonContext } from './config/define-sweep';
export { configSuite } from './config/config-suite';
export { crashSweepPlugin, RUN_HEADER, type CrashSweepPluginOptions } from './plugin';
export { formatTable } from './report/table';
export type { Counts, Row } from './judge/counting';
export { runSweep, type SweepOptions, type SweepReport, type SuiteFactory } from './engine/passes';
export type { SweepSuite, SuiteRow, SuiteRun } from './engine/suite';
export type { Shard } from './engine/planning';
export { jsonReport, type JsonReport } from './report/json';
export { mergeShards, parseShardReport, MergeError } from './report/merge';
export { ReceiverHost, ReceiverKills, type ReceiverLaunch, type ReceiverKill } from './hosts/receiver-host';
