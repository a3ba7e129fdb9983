// `npm run model`: the scripted model server on a port.
import { closeOnSignal, parseCommandLine, parsePort, runMain } from '../common/cli';
import { networkFlags, networkPolicyOf, NETWORK_USAGE } from '../common/http-guard';
import { buildModelServer } from './app';

const USAGE = `npm run model -- --port P ${NETWORK_USAGE}`;

/** `npm run model`: the scripted, OpenAI-compatible model server. */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      port: { type: 'string' },
      ...networkFlags(),
    },
    USAGE,
  );
  const port = parsePort(values.port, USAGE);
  const { bind, hosts } = networkPolicyOf(values);
  const app = buildModelServer({ hosts });
  const address = await app.listen({ port, host: bind });
  console.log(
    `model server listening on ${address} (OpenAI-compatible: ${address}/v1, calls per run: ${address}/calls?run=RUN)`,
  );
  closeOnSignal(() => app.close());
}

runMain(main);
