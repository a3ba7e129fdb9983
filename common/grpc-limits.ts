// How large a message a client of ours takes from the Temporal server.

/**
 * Channel options that let a client read a message of up to 128 MiB: a long run's history, or a
 * describe with a large memo. gRPC's default is 4 MiB, and the SDK's own default of 128 MiB is set
 * under a name the channel does not read (`max_receive_message_length`, without `grpc.`), so without
 * this `npm run status` on a run with a 5 MB history fails with RESOURCE_EXHAUSTED.
 */
export const LARGE_MESSAGES = { 'grpc.max_receive_message_length': 128 * 1024 * 1024 } as const;
