// `npm run codec`: the codec endpoint on a port, for `TEMPORAL_PAYLOAD_KEY`.
import { checkExposure } from '../common/access';
import { closeOnSignal, parseCommandLine, parsePort, runMain, UsageError } from '../common/cli';
import { codecFromEnv } from '../common/payload-codec';
import { networkFlags, networkPolicyOf, NETWORK_USAGE } from '../common/http-guard';
import { buildCodecServer } from './app';

const USAGE = `npm run codec -- [--port P] ${NETWORK_USAGE} [--token T] [--insecure]`;

/**
 * `npm run codec`: Temporal's codec endpoint for the payload key of the environment
 * (`TEMPORAL_PAYLOAD_KEY`, ...), for the Web UI and the `temporal` CLI to show encrypted payloads in plain text.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      port: { type: 'string' },
      // The Web UI's origins: the page that asks the codec to open payloads.
      ...networkFlags('http://localhost:8233,http://127.0.0.1:8233'),
      token: { type: 'string' },
      insecure: { type: 'boolean', default: false },
    },
    USAGE,
  );
  const port = parsePort(values.port, USAGE, 8081);
  const codec = codecFromEnv();
  if (!codec)
    throw new UsageError(
      'TEMPORAL_PAYLOAD_KEY is not set: the codec server opens payloads with the key the worker seals them with',
      USAGE,
    );
  const token = values.token ?? (process.env.CODEC_TOKEN || undefined);
  const { bind, hosts: policy } = networkPolicyOf(values);
  const exposed = checkExposure('the codec server', bind, token, values.insecure!);
  if (exposed) throw new UsageError(exposed, USAGE);
  const { hosts, origins } = policy;
  const app = buildCodecServer({ codec, origins, token, hosts });
  const address = await app.listen({ port, host: bind });
  console.log(`codec server listening on ${address} (origins ${origins.join(', ')}${token ? ', token required' : ''})`);
  closeOnSignal(() => app.close());
}

runMain(main);
