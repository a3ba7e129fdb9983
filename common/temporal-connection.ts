// How everything here connects to a Temporal server as a client: one factory, which takes large
// messages and says in one line which address it could not reach. Workers connect through the SDK's
// NativeConnection; where Temporal is comes from the environment (common/config.ts, temporalFromEnv).
import { Connection } from '@temporalio/client';
import type { Duration } from '@temporalio/common';

/**
 * Channel options that let a client read a message of up to 128 MiB: a long run's history, or a
 * describe with a large memo. gRPC's default is 4 MiB, and the SDK's own default of 128 MiB is set
 * under a name the channel does not read (`max_receive_message_length`, without `grpc.`), so without
 * this `npm run status` on a run with a 5 MB history fails with RESOURCE_EXHAUSTED.
 */
export const LARGE_MESSAGES = { 'grpc.max_receive_message_length': 128 * 1024 * 1024 } as const;

/** Thrown when the Temporal server cannot be reached at the configured address. */
export class ServerUnreachableError extends Error {
  constructor(
    readonly address: string,
    cause: Error,
  ) {
    super(`cannot reach Temporal at ${address} (set TEMPORAL_ADDRESS): ${cause.message}`);
    this.name = 'ServerUnreachableError';
  }
}

/** Options of {@link connectTemporal}. */
export interface ConnectTemporalOptions {
  /** How long to try before {@link ServerUnreachableError}. Default: the SDK's. */
  connectTimeout?: Duration;
}

/** A client connection to the Temporal server at `address` (`HOST:PORT`), taking messages of up to 128 MiB. */
export async function connectTemporal(address: string, options: ConnectTemporalOptions = {}): Promise<Connection> {
  try {
    return await Connection.connect({ address, connectTimeout: options.connectTimeout, channelArgs: LARGE_MESSAGES });
  } catch (err) {
    throw new ServerUnreachableError(address, err as Error);
  }
}
