/**
 * `crash-safe-agent/client`: start agent runs and answer what they wait for, from any Node process.
 *
 * What `npm run start`, `approve`, `resolve`, `status`, `reset` and `cancel` do, as functions of a Temporal `Client`.
 * A decision or an answer goes by Update, so the run says at once whether it took it (`RefusedError`
 * with its reason if not, nothing changed), or by signal when no worker answers; what a run waits for is
 * read from its memo, so they work with no worker alive.
 * `withClient` connects as those commands do: to `TEMPORAL_ADDRESS`, with the payload codec when
 * `TEMPORAL_PAYLOAD_KEY` is set, failing with one clear line when the server is not there;
 * `parseDuration` reads `24h`, `90s` as those commands take them.
 */
export {
  startAgentRun,
  approveCall,
  denyCall,
  answerQuestion,
  waitingFor,
  listWaitingRuns,
  NotWaitingError,
  type StartAgentRunOptions,
  type DecisionOptions,
  type AnswerOptions,
  type Decided,
} from '../clients/agent-client';
export { RefusedError, WORKER_WAIT_MS, type Sent, type Via } from '../clients/send-to-run';
export { withClient, connectClient, ServerUnreachableError, UnknownWorkflowError } from '../clients/connect';
export {
  resetRun,
  cancelRun,
  resetsOf,
  describeReset,
  parseResetTarget,
  ResetTargetError,
  type ResetTarget,
  type ResetDone,
  type ResetRecord,
} from '../common/operations';
export { configFromEnv, DEFAULT_TASK_QUEUE, type AgentConfig } from '../common/config';
export { PayloadKeyError } from '../common/payload-codec';
export { dataConverterFromEnv } from '../store/data-converter';
export { parseDuration } from '../common/duration';
export { SIGNAL_FIELD_CAPS } from '../workflows/signal-input';
