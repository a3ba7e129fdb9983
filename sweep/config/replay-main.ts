// The replay check's process: replays histories with a build's workflow bundle, its SDK warnings kept off the sweep's output.
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';

/** One history to replay, from the sweep process. */
interface ReplayRequest {
  bundle: string;
  workflowId: string;
  /** The history as `historyToJSON` writes it. */
  history: string;
}

// A replay that meets non-determinism is what the check looks for: the SDK's warnings of it stay quiet.
Runtime.install({
  logger: new DefaultLogger('ERROR', (e) => console.error(`replay check: ${e.level}: ${e.message}`)),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
});

/** Histories waiting for a bundle's replay worker, and the worker's wake-up when one comes. */
interface Feed {
  queue: HistoryAndWorkflowId[];
  wake: (() => void) | null;
}

const feeds = new Map<string, Feed>();

/** Histories of one bundle as they arrive, for as long as this process lives. */
async function* arriving(feed: Feed): AsyncGenerator<HistoryAndWorkflowId> {
  for (;;) {
    const next = feed.queue.shift();
    if (next) yield next;
    else await new Promise<void>((resolve) => (feed.wake = resolve));
  }
}

/**
 * One replay worker per bundle, for the process's life (replay workers started and ended by the
 * dozen, at once, trip over the SDK's runtime as it shuts down and starts again).
 */
function feedOf(bundle: string): Feed {
  let feed = feeds.get(bundle);
  if (feed) return feed;
  feed = { queue: [], wake: null };
  feeds.set(bundle, feed);
  const results = Worker.runReplayHistories(
    {
      workflowBundle: { codePath: bundle },
      // The crash-sweep plugin's point in the bundle: a replay reports nothing.
      sinks: { crashPoints: { reached: { fn() {}, callDuringReplay: false } } },
    },
    arriving(feed),
  );
  void (async () => {
    for await (const r of results)
      process.send!({
        workflowId: r.workflowId,
        ok: !r.error,
        ...(r.error ? { error: `${r.error.name}: ${r.error.message}` } : {}),
      });
  })();
  return feed;
}

process.on('message', (req: ReplayRequest) => {
  const feed = feedOf(req.bundle);
  feed.queue.push({ workflowId: req.workflowId, history: historyFromJSON(JSON.parse(req.history)) });
  feed.wake?.();
  feed.wake = null;
});
process.on('disconnect', () => process.exit(0));
