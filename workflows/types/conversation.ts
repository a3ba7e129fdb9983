// The conversation as the loop keeps it in history: messages and the model's tool calls.

/** An OpenAI-format chat message as the loop keeps it in history. */
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
