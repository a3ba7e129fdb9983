/**
 * `crash-safe-agent/activity`: what activity code imports (small: no worker, no model, no MCP).
 *
 * - `activityKey`: the idempotency key of an activity called through `keyedActivities`;
 * - `callKey`: the key of call `call` of run `owner`, as the agent's tool calls and `keyedActivities` make it.
 */
export { activityKey } from '../activities/activity-key';
export { key as callKey } from '../common/key';
