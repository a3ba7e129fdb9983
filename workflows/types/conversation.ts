// The conversation as the loop keeps it in history: messages, the model's tool calls, and texts kept
// in the payload store instead of history.

/** An OpenAI-format chat message, as the model is sent it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

/** One tool call of a model reply; `id` is what the idempotency key is made from. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * Where a payload lives in the payload store: the driver's name and its claim (for the local driver,
 * the object's path and SHA-256; for S3, the bucket, key and SHA-256), and the seal that lets the
 * chain of runs that stored it, and no other, read it back. Small: this is what history holds.
 */
export interface StoredRef {
  driver: string;
  claim: Record<string, string>;
  /** HMAC-SHA-256 under the store's secret over driver, claim and chain; a reference without one is never read. */
  seal?: string;
}

/**
 * A text kept in the payload store instead of history (a tool output at or over the store's
 * threshold): its reference, its size, and its first characters for people reading the run.
 */
export interface StoredText {
  stored: StoredRef;
  /** Its size in UTF-8 bytes. */
  bytes: number;
  /** Its first characters, for `npm run status` and the Web UI. */
  preview: string;
}

/** A tool's output as the run keeps it: the text itself, or where the payload store keeps it. */
export type ToolOutput = string | StoredText;

/** A message as the run keeps it: a {@link ChatMessage} whose content may be kept in the payload store. */
export interface KeptMessage extends Omit<ChatMessage, 'content'> {
  content: ToolOutput | null;
}

/**
 * The conversation as a model call is given it: the turns the payload store already keeps
 * (`prefix`, a record the model activity stored after the previous reply), then the messages added
 * since. With no store every message is in `added`, as a whole conversation in each call.
 */
export interface ConversationRef {
  prefix?: StoredRef;
  added: KeptMessage[];
}
