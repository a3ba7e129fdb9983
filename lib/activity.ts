/**
 * `crash-safe-agent/activity`: what activity code imports (small: no worker, no model, no MCP).
 *
 * - `activityKey`: the idempotency key of an activity called through `keyedActivities` (the function that
 *   makes keys, `callKey`, is `crash-safe-agent/workflow`'s);
 */
export { activityKey } from '../activities/activity-key';
