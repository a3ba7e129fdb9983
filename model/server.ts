// `npm run model`: the scripted model server on a port.
import { closeOnSignal, parseCommandLine, parsePort, runMain } from '../common/cli';
import { buildModelServer } from './app';

const USAGE = 'npm run model -- --port P [--host H]';

/** `npm run model`: the scripted, OpenAI-compatible model server. */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    { port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } },
    USAGE,
  );
  const port = parsePort(values.port, USAGE);
  const app = buildModelServer();
  const address = await app.listen({ port, host: values.host });
  console.log(
    `model server listening on ${address} (OpenAI-compatible: ${address}/v1, calls per run: ${address}/calls?run=RUN)`,
  );
  closeOnSignal(() => app.close());
}

runMain(main);
