// What a reset or retried run of the agent loop took from its earlier executions (`npm run status`):
// read from its history, by the loop's own activity names.
import type { temporal } from '@temporalio/proto';
import type { AgentActivities } from '../activities';
import { activitiesOf, type PayloadDecoder } from '../common/history-events';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The loop's activities whose results may come from an earlier execution (typed: a rename breaks the build). */
const MODEL_CALL: keyof AgentActivities = 'callModel';
const TOOL_CALL: keyof AgentActivities = 'runTool';

/** What an execution took from earlier ones instead of doing again: a model reply, or a tool call's response. */
export interface TakenFromEarlier {
  kind: 'reply' | 'call';
  /** `turn N` for a reply; `TOOL CALL_ID` for a call. */
  what: string;
  fromRunId: string;
}

/**
 * What a reset or retried run of the agent loop took from its earlier executions, read from its
 * history: model replies and tool responses marked `fromRunId` (`activities/earlier-executions.ts`).
 * `decode` reads a payload as the worker wrote it (the client's data converter).
 */
export async function takenFromEarlier(
  events: readonly HistoryEvent[],
  decode: PayloadDecoder,
): Promise<TakenFromEarlier[]> {
  const taken: TakenFromEarlier[] = [];
  for (const { type, input, ended } of activitiesOf(events)) {
    if ((type !== MODEL_CALL && type !== TOOL_CALL) || !input || ended.kind !== 'completed' || !ended.result) continue;
    const { fromRunId } = ((await decode(ended.result)) ?? {}) as { fromRunId?: unknown };
    if (typeof fromRunId !== 'string') continue;
    const asked = (await decode(input)) as {
      turn?: number;
      messages?: Array<{ role: string }>;
      tool?: string;
      callId?: string;
    };
    taken.push(
      type === MODEL_CALL
        ? {
            kind: 'reply',
            what: `turn ${asked.turn ?? (asked.messages ?? []).filter((m) => m.role === 'assistant').length + 1}`,
            fromRunId,
          }
        : { kind: 'call', what: `${asked.tool} ${asked.callId}`, fromRunId },
    );
  }
  return taken;
}

/** One line for `npm run status`: `turn 1: the model's reply taken from run X, not asked again`. */
export function describeTaken(t: TakenFromEarlier): string {
  return t.kind === 'reply'
    ? `${t.what}: the model's reply taken from run ${t.fromRunId}, not asked again`
    : `call ${t.what}: its response taken from run ${t.fromRunId}, not sent again`;
}
