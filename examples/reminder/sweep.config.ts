// The reminder example's sweep: a two-day timer, swept as written in about a second a run; the mail
// service tells the runs apart by the header the plugin adds (`runHeader`), as the mail names only
// the customer. `npm run sweep -- --config examples/reminder/sweep.config.ts`
import { defineSweep } from '../../sweep';
import { RUN_HEADER } from '../../sweep/plugin';
import { startStandIn } from '../stand-in';
import { createActivities } from './activities';

let service: { url: string; close(): Promise<void> } | undefined;
// What each run's case and mails are, by workflow id.
const cases = new Map<string, number>();
const mails = new Map<string, number>();
const count = (m: Map<string, number>, id: string) => m.set(id, (m.get(id) ?? 0) + 1);

export default defineSweep({
  name: 'reminder',
  label: 'reminder after two days, no keys',
  workflowsPath: require.resolve('./workflows'),
  activities: () => createActivities(process.env.REMINDER_URL!),
  points: { runHeader: true },
  async setup() {
    service = await startStandIn({ honourKeys: false }, ({ path, headers, body }) => {
      const run = headers[RUN_HEADER];
      if (typeof run !== 'string') return { code: 400, text: `no ${RUN_HEADER} header` };
      if (path === '/cases' && typeof body.caseId === 'string') count(cases, run);
      else if (path === '/mail' && typeof body.to === 'string') count(mails, run);
      else return { code: 404, text: 'not found' };
      return { code: 200, text: 'ok' };
    });
    return { env: { REMINDER_URL: service.url } };
  },
  teardown: () => service?.close(),
  start: ({ client, taskQueue, workflowId, workflowTaskTimeout }) =>
    client.workflow.start('reminderWorkflow', {
      taskQueue,
      workflowId,
      workflowTaskTimeout,
      args: [workflowId, 'customer@example.com'],
    }),
  check: ({ workflowId }) => {
    const c = cases.get(workflowId) ?? 0;
    const m = mails.get(workflowId) ?? 0;
    return { dups: Math.max(0, c - 1) + Math.max(0, m - 1), missing: (c === 0 ? 1 : 0) + (m === 0 ? 1 : 0) };
  },
});
