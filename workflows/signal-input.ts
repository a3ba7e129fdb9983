// What the approve and resolve signals must carry, read exactly: anything else is refused with a reason.
import type { ApproveSignal, ResolveSignal } from './types';

/**
 * A signal's input as the run takes it, or why it is refused, with what it named (its id as sent,
 * shown when it is no string) and who sent it, for the list of refusals.
 */
export type SignalRead<T> = { ok: T } | { refused: string; named: string; by?: string };

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

/** What a signal's input must hold: its noun, its id field, its boolean field and its optional strings. */
interface SignalShape {
  noun: string;
  id: string;
  flag: string;
  strings: readonly string[];
}

/**
 * A signal's input read exactly: an object whose `shape.id` is a non-empty string and whose
 * `shape.flag` is `true` or `false` (a boolean, never a string or a number), with the optional fields
 * strings when present. Unknown fields are left out.
 */
function readExact(value: unknown, shape: SignalShape): SignalRead<Record<string, unknown>> {
  const record = isRecord(value) ? value : {};
  const id = record[shape.id];
  const by = typeof record.by === 'string' ? record.by : undefined;
  const refuse = (why: string) => ({
    refused: why,
    named: typeof id === 'string' ? id : shown(id),
    ...(by ? { by } : {}),
  });
  if (!isRecord(value)) return refuse(`${shape.noun} must be a JSON object, not ${shown(value)}`);
  if (typeof id !== 'string' || id === '') return refuse(`${shape.id} must be a non-empty string, not ${shown(id)}`);
  const flag = value[shape.flag];
  if (typeof flag !== 'boolean') return refuse(`${shape.flag} must be true or false, not ${shown(flag)}`);
  const out: Record<string, unknown> = { [shape.id]: id, [shape.flag]: flag };
  for (const name of shape.strings) {
    if (value[name] === undefined) continue;
    if (typeof value[name] !== 'string') return refuse(`${name} must be a string, not ${shown(value[name])}`);
    out[name] = value[name];
  }
  return { ok: out };
}

/**
 * The `approve` signal's input, read exactly: `callId` a non-empty string, `approved` a boolean, `by`,
 * `reason` and `digest` strings when present (`by` defaults to "someone"). Anything else approves nothing.
 */
export function readDecision(value: unknown): SignalRead<ApproveSignal> {
  const read = readExact(value, {
    noun: 'an approval',
    id: 'callId',
    flag: 'approved',
    strings: ['by', 'reason', 'digest'],
  });
  return 'ok' in read ? { ok: { by: 'someone', ...read.ok } as unknown as ApproveSignal } : read;
}

/**
 * The `resolve` signal's input, read exactly: `questionId` a non-empty string, `happened` a boolean,
 * `result` and `by` strings when present. Whether the question is one the run takes is for `judgeAnswer`.
 */
export function readAnswer(value: unknown): SignalRead<ResolveSignal> {
  const read = readExact(value, { noun: 'an answer', id: 'questionId', flag: 'happened', strings: ['result', 'by'] });
  return 'ok' in read ? { ok: read.ok as unknown as ResolveSignal } : read;
}
