// `npm run model`: the scripted model server on a port.
import { closeOnSignal, commaList, parseCommandLine, parsePort, runMain } from '../common/cli';
import { boundHostPolicy } from '../common/http-guard';
import { buildModelServer } from './app';

const USAGE = 'npm run model -- --port P [--host H] [--allow-host NAME,...] [--allow-origin URL,...]';

/** `npm run model`: the scripted, OpenAI-compatible model server. */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      'allow-host': { type: 'string', default: '' },
      'allow-origin': { type: 'string', default: '' },
    },
    USAGE,
  );
  const port = parsePort(values.port, USAGE);
  const hosts = boundHostPolicy(values.host!, commaList(values['allow-host']), commaList(values['allow-origin']));
  const app = buildModelServer({ hosts });
  const address = await app.listen({ port, host: values.host });
  console.log(
    `model server listening on ${address} (OpenAI-compatible: ${address}/v1, calls per run: ${address}/calls?run=RUN)`,
  );
  closeOnSignal(() => app.close());
}

runMain(main);
