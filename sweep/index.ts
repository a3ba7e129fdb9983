/**
 * The crash sweep as a library: what a user's project imports (`exports` in package.json). What runs
 * inside a worker, the plugin and `crashPoint`, is `crash-safe-agent/plugin` (`sweep/plugin/index.ts`).
 *
 * - `defineSweep` and its types: a `crash-sweep.config.ts` for `npx crash-sweep --config FILE`;
 * - `runSweep` and `configSuite`: the engine, to run a sweep from code (`shard` for one share of it);
 * - `jsonReport` and `mergeShards`: a sweep's report as data, and the shards' reports joined into one;
 * - `Reporter`: the hooks a reporter of your own implements (`--reporter ./my-reporter.ts`);
 * - `ReceiverHost` and `ReceiverKills`: a receiver process a suite kills mid-request and restarts on its port.
 */
export { defineSweep } from './config/define-sweep';
export { loadSweepConfig, ConfigError } from './config/load-config';
export type { SweepConfig, StartContext, CheckContext, CheckResult, PersonContext } from './config/define-sweep';
export { configSuite } from './config/config-suite';
export { formatTable } from './report/table';
export type { Row } from './judge/counting';
export type { Counts } from './judge/counts';
export { runSweep, type SweepOptions, type SweepReport, type SuiteFactory } from './engine/passes';
export type { SweepSuite, SuiteRow, SuiteRun } from './engine/suite';
export type { Shard } from './engine/planning';
export { jsonReport, type JsonReport } from './report/json';
export { mergeShards, parseShardReport, MergeError } from './report/merge';
export { ReceiverHost, ReceiverKills, type ReceiverLaunch, type ReceiverKill } from './hosts/receiver-host';
export type { Reporter, SweepEnd } from './report/reporter';
export type { Verdict } from './judge/verdict';
