// `npm run tracker`: the issue tracker over HTTP on a SQLite file.
import { checkExposure } from '../common/access';
import { closeOnSignal, parseCommandLine, parsePort, runMain, UsageError } from '../common/cli';
import { networkFlags, networkPolicyOf, NETWORK_USAGE } from '../common/http-guard';
import { parseDuration } from '../common/duration';
import { buildTracker } from './app';
import { trackerTokensFromEnv } from './config';
import { Store, type SyncMode } from './store';

const USAGE = `npm run tracker -- --port P --db FILE [--keyless] [--key-ttl DURATION] [--commit-deadline DURATION] [--sync full|normal|off] ${NETWORK_USAGE} [--token T] [--insecure]`;

/** `npm run tracker`: the issue tracker over HTTP on a SQLite file. */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      port: { type: 'string' },
      db: { type: 'string' },
      keyless: { type: 'boolean', default: false },
      'key-ttl': { type: 'string', default: '24h' },
      'commit-deadline': { type: 'string' },
      sync: { type: 'string', default: 'full' },
      ...networkFlags(),
      token: { type: 'string' },
      insecure: { type: 'boolean', default: false },
    },
    USAGE,
  );
  const port = parsePort(values.port, USAGE);
  if (!values.db) throw new UsageError('--db is required (a SQLite file; it is created if missing)', USAGE);
  const sync = values.sync as SyncMode;
  if (!['full', 'normal', 'off'].includes(sync)) throw new UsageError(`bad --sync ${JSON.stringify(sync)}`, USAGE);
  let keyTtlMs: number;
  let commitDeadlineMs: number | undefined;
  try {
    keyTtlMs = parseDuration(values['key-ttl']!);
    // Stated on every response only when given: a caller then knows how long a request it sent may still commit.
    if (values['commit-deadline'] !== undefined) commitDeadlineMs = parseDuration(values['commit-deadline']);
  } catch (err) {
    throw new UsageError((err as Error).message, USAGE);
  }

  // TRACKER_TOKENS adds more, each an account of its own: keys are scoped per token.
  const tokens = trackerTokensFromEnv(process.env, values.token);
  const { bind, hosts } = networkPolicyOf(values);
  const exposed = checkExposure('the tracker', bind, tokens[0], values.insecure!);
  if (exposed) throw new UsageError(exposed, USAGE);

  const store = new Store(values.db, sync);
  const app = buildTracker({
    store,
    keyless: values.keyless,
    keyTtlMs,
    token: tokens,
    hosts,
    ...(commitDeadlineMs ? { commitDeadlineMs, stateCommitDeadline: true } : {}),
  });
  const address = await app.listen({ port, host: bind });
  const keys = values.keyless ? 'keyless: Idempotency-Key is ignored' : `keys kept ${values['key-ttl']}`;
  console.log(
    `tracker listening on ${address} (db ${values.db}, ${keys}, sync ${sync}${tokens.length ? `, token required (${tokens.length} account${tokens.length === 1 ? '' : 's'}, keys scoped per token)` : ''})`,
  );
  closeOnSignal(async () => {
    await app.close();
    store.close();
  });
}

runMain(main);
