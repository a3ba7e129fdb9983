// What the approve and resolve signals must carry, read exactly: anything else is refused with a reason.
import { cutText } from '../common/cut-text';
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

/**
 * The most characters each field of a signal may hold, checked where the signal enters the run (and
 * first by the clients): a decision or an answer over them is refused, so no person's words, however
 * long, reach a model input or a command. `result` is what a person says a call returned, which the
 * model reads; `reason` is what a denial tells it.
 */
export const SIGNAL_FIELD_CAPS = {
  callId: 256,
  questionId: 260,
  by: 200,
  reason: 2_000,
  digest: 64,
  result: 16_384,
} as const;

/** What a digest an approval names looks like (`callDigest`): `sha256:` and 16 hex digits. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{16}$/;

/** Why one field of a signal is over its cap, or `null`. */
export function fieldOverCap(name: string, value: unknown): string | null {
  const cap = (SIGNAL_FIELD_CAPS as Record<string, number>)[name];
  if (cap === undefined || typeof value !== 'string' || value.length <= cap) return null;
  return `${name} is ${value.length} characters, over its cap of ${cap}`;
}

/** What a signal's input must hold: its noun, its id field, its boolean field and its optional strings. */
interface SignalShape {
  noun: string;
  id: string;
  flag: string;
  strings: readonly string[];
}

/** How a signal is read: `capped` (runs since the caps) refuses a field over its cap, and a digest of another form. */
export interface ReadOptions {
  capped?: boolean;
}

/**
 * A signal's input read exactly: an object whose `shape.id` is a non-empty string and whose
 * `shape.flag` is `true` or `false` (a boolean, never a string or a number), with the optional fields
 * strings when present. Unknown fields are left out.
 */
function readExact(value: unknown, shape: SignalShape, options: ReadOptions = {}): SignalRead<Record<string, unknown>> {
  const record = isRecord(value) ? value : {};
  const id = record[shape.id];
  const by = typeof record.by === 'string' ? record.by : undefined;
  // What a refusal keeps of the sender's words is cut, so a refused signal cannot grow the run's state.
  const keep = (text: string) => (options.capped ? cutText(text, 80) : text);
  const refuse = (why: string) => ({
    refused: why,
    named: typeof id === 'string' ? keep(id) : shown(id),
    ...(by ? { by: keep(by) } : {}),
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
  if (options.capped) {
    for (const name of [shape.id, ...shape.strings]) {
      const over = fieldOverCap(name, out[name]);
      if (over) return refuse(over);
    }
    if (out.digest !== undefined && !DIGEST_PATTERN.test(out.digest as string))
      return refuse(
        `digest must be sha256: and 16 hex digits, as the approval request shows it, not ${shown(out.digest)}`,
      );
  }
  return { ok: out };
}

/**
 * The `approve` signal's input, read exactly: `callId` a non-empty string, `approved` a boolean, `by`,
 * `reason` and `digest` strings when present (`by` defaults to "someone"). Anything else approves nothing.
 * `capped`: each field within {@link SIGNAL_FIELD_CAPS}, and a digest of the form `callDigest` gives.
 */
export function readDecision(value: unknown, options: ReadOptions = {}): SignalRead<ApproveSignal> {
  const read = readExact(
    value,
    { noun: 'an approval', id: 'callId', flag: 'approved', strings: ['by', 'reason', 'digest'] },
    options,
  );
  return 'ok' in read ? { ok: { by: 'someone', ...read.ok } as unknown as ApproveSignal } : read;
}

/**
 * The `resolve` signal's input, read exactly: `questionId` a non-empty string, `happened` a boolean,
 * `result` and `by` strings when present. Whether the question is one the run takes is for `judgeAnswer`.
 */
export function readAnswer(value: unknown, options: ReadOptions = {}): SignalRead<ResolveSignal> {
  const read = readExact(
    value,
    { noun: 'an answer', id: 'questionId', flag: 'happened', strings: ['result', 'by'] },
    options,
  );
  return 'ok' in read ? { ok: read.ok as unknown as ResolveSignal } : read;
}

/** How many refused signals of each kind a run keeps (the newest), beside the count of all of them. */
export const REFUSALS_KEPT = 20;
/** How many decisions (or answers) a run holds for calls (or questions) that do not wait yet; more are refused. */
export const EARLY_KEPT = 16;

/**
 * Refusals as a run keeps them: the newest {@link REFUSALS_KEPT} and the count of all, so no number of
 * refused signals can grow a run's state, its query answer or what continue-as-new carries.
 * `bounded: false` (a run older than the caps) keeps every one, as it did then.
 */
export function refusalLog<T>(carried: readonly T[] = [], carriedCount?: number, bounded = true) {
  const kept: T[] = [...carried];
  let count = carriedCount ?? kept.length;
  return {
    add(item: T): void {
      count += 1;
      kept.push(item);
      if (bounded && kept.length > REFUSALS_KEPT) kept.splice(0, kept.length - REFUSALS_KEPT);
    },
    list: (): T[] => [...kept],
    count: () => count,
  };
}
