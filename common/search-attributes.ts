// The search attributes an agent run keeps, so the server finds the runs that wait for a person.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The search attributes an agent run keeps up to date, so that the server (the Web UI's filter,
 * `temporal workflow list --query`, `npm run status`) finds every run that waits for a person, with
 * no worker alive. Both are keyword lists: a run can wait for an approval and an answer at once, and
 * `AgentWaiting = "approval"` matches a list that holds `approval`.
 */
export const AGENT_WAITING = defineSearchAttributeKey('AgentWaiting', SearchAttributeType.KEYWORD_LIST);
/** The ids of the calls that wait (for an approval or an answer). */
export const AGENT_PENDING_CALLS = defineSearchAttributeKey('AgentPendingCalls', SearchAttributeType.KEYWORD_LIST);

/** Every search attribute the agent needs registered on its namespace. */
export const AGENT_SEARCH_ATTRIBUTES = [AGENT_WAITING, AGENT_PENDING_CALLS] as const;

/** What `AgentWaiting` holds for a run that waits for nobody. */
export const WAITING_NONE = 'none';

/** The visibility query that lists the runs waiting for a person. */
export const WAITING_FOR_A_PERSON = `${AGENT_WAITING.name} IN ("approval", "question")`;
