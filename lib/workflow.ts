/**
 * `crash-safe-agent/workflow`: what workflow code imports. Safe in a workflow bundle (no I/O, no Node).
 *
 * - `agentWorkflow`, its input and result, and the signals, Updates and query it answers;
 * - `keyedActivities`: keys and the resolution ladder for any workflow's activities;
 * - `toolActivities`: the same for an AI SDK agent's tools, each call keyed by the model's tool-call id;
 * - `callKey`, `callDigest`: the key of a call and the digest an approval binds to;
 * - the types of the loop (its input, result, waits, model requests and replies, tool effects), which
 *   worker and client code import from here too (`import type`: nothing of workflow code is loaded).
 */
export { agentWorkflow } from '../workflows/agent';
export {
  approveSignal,
  resolveSignal,
  approveUpdate,
  resolveUpdate,
  pendingQuery,
  WAITING_MEMO,
} from '../workflows/signals';
export { DEFAULT_INSTRUCTIONS, type ToolSpec } from '../workflows/tools';
export { keyedActivities, type KeyedActivitiesOptions, type KeyedCallOptions } from '../workflows/keyed-activities';
export { toolActivities, type ToolActivities, type ToolCallOptions } from '../workflows/tool-activities';
export { key as callKey } from '../common/key';
export type { ToolEffect } from '../workflows/effects';
export { callDigest } from '../workflows/digest';
export type * from '../workflows/types';
