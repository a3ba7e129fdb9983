// `npm run codec`: the codec endpoint on a port, for `TEMPORAL_PAYLOAD_KEY`.
import { checkExposure } from '../common/access';
import { closeOnSignal, commaList, parseCommandLine, parsePort, runMain, UsageError } from '../common/cli';
import { codecFromEnv } from '../common/payload-codec';
import { boundHostPolicy } from '../common/http-guard';
import { buildCodecServer } from './app';

const USAGE =
  'npm run codec -- [--port P] [--host H] [--allow-host NAME,...] [--allow-origin URL,...] [--token T] [--insecure]';

/**
 * `npm run codec`: Temporal's codec endpoint for the payload key of the environment
 * (`TEMPORAL_PAYLOAD_KEY`, ...), for the Web UI and the `temporal` CLI to show encrypted payloads in plain text.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      'allow-host': { type: 'string', default: '' },
      'allow-origin': { type: 'string', default: 'http://localhost:8233,http://127.0.0.1:8233' },
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
  const exposed = checkExposure('the codec server', values.host!, token, values.insecure!);
  if (exposed) throw new UsageError(exposed, USAGE);
  const origins = commaList(values['allow-origin']);
  const { hosts } = boundHostPolicy(values.host!, commaList(values['allow-host']));
  const app = buildCodecServer({ codec, origins, token, hosts });
  const address = await app.listen({ port, host: values.host });
  console.log(`codec server listening on ${address} (origins ${origins.join(', ')}${token ? ', token required' : ''})`);
  closeOnSignal(() => app.close());
}

runMain(main);
