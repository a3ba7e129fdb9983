// What the loop knows of sizes: Temporal's payload limit, the conversation's cap, and how to measure both.
import { ApplicationFailure } from '@temporalio/workflow';
import type { KeptMessage } from './types';

/**
 * The largest payload the loop hands Temporal in one command when no payload store takes large ones:
 * the server's default limit (`limit.blobSize.error`, 2 MiB) less room for the encoding and a codec.
 */
export const PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024 - 16 * 1024;

/**
 * The largest conversation a run sends the model, unless its input says otherwise
 * (`maxConversationBytes`): 128 MiB, past any model's context today, so a run that can only grow fails
 * with a reason instead of storing more for ever.
 */
export const DEFAULT_MAX_CONVERSATION_BYTES = 128 * 1024 * 1024;

/** UTF-8 bytes of a string, counted without an encoder (deterministic, in the workflow sandbox). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** UTF-8 bytes of a value as JSON: about what its payload weighs. */
export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? '');
}

/** Bytes a kept message stands for: its text's, a stored output's as stored, plus its tool calls'. */
export function messageBytes(message: KeptMessage): number {
  const content = message.content;
  const text = content === null ? 0 : typeof content === 'string' ? utf8Length(content) : content.bytes;
  return text + (message.tool_calls ? jsonBytes(message.tool_calls) : 0);
}

/**
 * Fails the run, at once and for good, when a payload it is about to hand Temporal is over the limit
 * and no payload store takes it: the workflow task would otherwise fail on it for ever.
 */
export function refuseOversizePayload(what: string, bytes: number): void {
  if (bytes <= PAYLOAD_LIMIT_BYTES) return;
  throw ApplicationFailure.nonRetryable(
    `${what} is ${bytes} bytes, over the ${PAYLOAD_LIMIT_BYTES} bytes Temporal takes in one payload (its 2 MiB limit, ` +
      'less room for encoding): give the workers a payload store (createAgentWorker with a dataConverter whose ' +
      "externalStorage has a driver, or AGENT_PAYLOAD_DIR), or cap the tools' outputs (maxOutputBytes); nothing more ran",
    'PayloadTooLarge',
    { what, bytes, limit: PAYLOAD_LIMIT_BYTES },
  );
}

/** Fails the run when the conversation it would send the model is over the run's cap. */
export function refuseOversizeConversation(bytes: number, cap: number): void {
  if (bytes <= cap) return;
  throw ApplicationFailure.nonRetryable(
    `the conversation is ${bytes} bytes, over this run's maxConversationBytes of ${cap}: cap the tools' outputs ` +
      '(maxOutputBytes) or raise maxConversationBytes; the model was not asked again',
    'ConversationTooLarge',
    { bytes, limit: cap },
  );
}
