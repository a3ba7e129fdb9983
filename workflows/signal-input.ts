// What the approve and resolve signals must carry, read exactly: anything else is refused with a reason.
import type { ApproveSignal, ResolveSignal } from './types';

/** A signal's input as the run takes it, or why it is refused. */
export type SignalRead<T> = { ok: T } | { refused: string };

/** A short description of a value for a refusal: its JSON, cut at 80 characters. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(typeof value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The optional string fields of `v` among `names`, or the first that is present and not a string. */
function optionalStrings(
  v: Record<string, unknown>,
  names: readonly string[],
): { ok: Record<string, string> } | { refused: string } {
  const out: Record<string, string> = {};
  for (const name of names) {
    if (v[name] === undefined) continue;
    if (typeof v[name] !== 'string') return { refused: `${name} must be a string, not ${shown(v[name])}` };
    out[name] = v[name];
  }
  return { ok: out };
}

/**
 * The `approve` signal's input, read exactly: an object whose `callId` is a non-empty string and
 * whose `approved` is `true` or `false` (a boolean, never a string or a number), with `by`, `reason`
 * and `digest` strings when present. Unknown fields are ignored. Anything else approves nothing.
 */
export function readDecision(value: unknown): SignalRead<ApproveSignal> {
  if (!isRecord(value)) return { refused: `an approval must be a JSON object, not ${shown(value)}` };
  if (typeof value.callId !== 'string' || value.callId === '')
    return { refused: `callId must be a non-empty string, not ${shown(value.callId)}` };
  if (typeof value.approved !== 'boolean')
    return { refused: `approved must be true or false, not ${shown(value.approved)}` };
  const strings = optionalStrings(value, ['by', 'reason', 'digest']);
  if ('refused' in strings) return strings;
  const { by, ...rest } = strings.ok;
  return { ok: { callId: value.callId, approved: value.approved, by: by ?? 'someone', ...rest } };
}

/**
 * The `resolve` signal's input, read exactly: an object whose `questionId` is a non-empty string and
 * whose `happened` is `true` or `false`, with `result` and `by` strings when present. Unknown fields
 * are ignored. Whether the question is one the run takes is for `judgeAnswer`.
 */
export function readAnswer(value: unknown): SignalRead<ResolveSignal> {
  if (!isRecord(value)) return { refused: `an answer must be a JSON object, not ${shown(value)}` };
  if (typeof value.questionId !== 'string' || value.questionId === '')
    return { refused: `questionId must be a non-empty string, not ${shown(value.questionId)}` };
  if (typeof value.happened !== 'boolean')
    return { refused: `happened must be true or false, not ${shown(value.happened)}` };
  const strings = optionalStrings(value, ['result', 'by']);
  if ('refused' in strings) return strings;
  return { ok: { questionId: value.questionId, happened: value.happened, ...strings.ok } };
}

/** Who sent a refused signal, if its input says so as a string. */
export function senderOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.by === 'string' ? value.by : undefined;
}
