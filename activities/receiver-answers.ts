// What a receiver answers a tool call and a lookup: the shapes the MCP toolbox and the tracker's tools share.

/** A receiver's reply to a tool call: the JSON text the model gets, whether the receiver replayed it (a key it knew), and how long it keeps keys. */
export interface ToolReply {
  output: string;
  replayed: boolean;
  retentionMs?: number;
}

/** The receiver's answer to "did this call happen?". */
export interface LookupAnswer {
  happened: boolean;
  output?: string;
  /**
   * Not found yet, but a request may still commit this long after it arrived (the receiver said so):
   * "did not happen" is final only that long after the call's last attempt ended.
   */
  commitDeadlineMs?: number;
  /** With `happened: false`: a record under the call's key or trace that is not this call's, as a person should see it. */
  mismatch?: string;
}
