// The failure converter of a worker and its clients when payloads are sealed: a failure's message and
// stack trace go into an encoded payload (sealed by the codec) instead of plain text in history.
import { DefaultFailureConverter } from '@temporalio/common';

/**
 * The SDK's converter with `encodeCommonAttributes`: history keeps "Encoded failure" and no stack;
 * the message and stack trace travel as a payload, which the payload codec seals like any other, and
 * a client with the key (or the codec server) opens. Loaded by path (`failureConverterPath`), the
 * only way a TypeScript worker takes a failure converter: in the workflow sandbox and outside it.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
