/**
 * `crash-safe-agent/client`: start agent runs and answer what they wait for, from any Node process.
 *
 * What `npm run start`, `approve`, `resolve` and `status` do, as functions of a Temporal `Client`.
 * The answers go by signal; what a run waits for is read from its memo, so they work with no worker alive.
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
} from '../clients/agent-client';
export { UnknownWorkflowError } from '../clients/connect';
export { approveSignal, resolveSignal, pendingQuery } from '../workflows/signals';
export type { AgentInput, AgentResult, OpenItem, WaitingState, PendingState } from '../workflows/types';
