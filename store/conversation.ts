// The conversation kept in the payload store: one record per model call, each naming the one before.
import { canonicalJson } from '../common/canonical-json';
import type { ChatMessage, ConversationRef, KeptMessage, StoredRef } from '../workflows/types';
import { NoPayloadStoreError, textOf, type PayloadStore, type StoreScope } from './payload-store';
import type { RunChain } from './reference-seal';

/**
 * What the store keeps of one model call: the conversation before it, by reference to the previous
 * call's record, and the messages it added (those since, and the model's reply). Each message is in
 * one record only, so the store grows with the conversation, not with its square; a large tool output
 * in a message is a reference to its own stored text.
 */
export interface TurnRecord {
  prefix?: StoredRef;
  messages: KeptMessage[];
}

/**
 * A model call stores its turn once what the conversation carries inline (the messages since the
 * stored turns, and the reply) reaches 4 KiB: a short conversation (a triage of three turns) never
 * touches the store, and a long one carries at most about this much inline in each model call.
 */
export const RECORD_AFTER_BYTES = 4 * 1024;

/**
 * Conversations this process rebuilt lately, by their record's reference (seal included): the next
 * turn's prefix is usually here. Only a reference whose seal held for the chain asking is looked up.
 */
const recent = new Map<string, ChatMessage[]>();
const RECENT_MAX = 256;

function remember(ref: StoredRef, messages: ChatMessage[]): void {
  const id = canonicalJson(ref);
  recent.delete(id);
  recent.set(id, messages);
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!);
}

/** A kept message as the model is sent it: a stored output read back. */
async function resolved(message: KeptMessage, store: PayloadStore | undefined, chain: RunChain): Promise<ChatMessage> {
  if (message.content === null || typeof message.content === 'string') return message as ChatMessage;
  return { ...message, content: await textOf(message.content, store, 'a tool output of this conversation', chain) };
}

/** The whole conversation up to and with the record `ref` names, read back from the store. */
export async function storedConversation(
  ref: StoredRef,
  store: PayloadStore | undefined,
  chain: RunChain,
): Promise<ChatMessage[]> {
  if (!store) throw new NoPayloadStoreError('the conversation');
  // Checked before the cache is asked: a copy of another chain's reference must not be answered from it.
  store.check(ref, chain);
  // Walk back to a record this process knows (or the first), then forward, so a long chain costs no deep recursion.
  const records: TurnRecord[] = [];
  let base: ChatMessage[] = [];
  let at: StoredRef | undefined = ref;
  const refs: StoredRef[] = [];
  while (at) {
    const known = recent.get(canonicalJson(at));
    if (known) {
      base = known;
      break;
    }
    const record: TurnRecord = await store.get<TurnRecord>(at, chain);
    records.push(record);
    refs.push(at);
    at = record.prefix;
  }
  let messages = base;
  for (let i = records.length - 1; i >= 0; i--) {
    const added = await Promise.all(records[i]!.messages.map((m) => resolved(m, store, chain)));
    messages = [...messages, ...added];
    remember(refs[i]!, messages);
  }
  return messages;
}

/** The whole conversation a model call names: its stored turns, then the messages added since. */
export async function wholeConversation(
  conversation: ConversationRef,
  store: PayloadStore | undefined,
  chain: RunChain,
): Promise<ChatMessage[]> {
  const before = conversation.prefix ? await storedConversation(conversation.prefix, store, chain) : [];
  const added = await Promise.all(conversation.added.map((m) => resolved(m, store, chain)));
  return [...before, ...added];
}

/**
 * Stores the record of one model call (the conversation it was given, and its reply) and returns its
 * reference, for the next call to name. `whole` is the conversation with the reply, remembered for it.
 */
export async function recordTurn(
  store: PayloadStore,
  conversation: ConversationRef,
  reply: ChatMessage,
  whole: ChatMessage[],
  scope: StoreScope,
): Promise<StoredRef> {
  const record: TurnRecord = {
    ...(conversation.prefix ? { prefix: conversation.prefix } : {}),
    messages: [...conversation.added, reply],
  };
  const ref = await store.put(record, scope);
  remember(ref, whole);
  return ref;
}
