// The helpdesk example's sweep: a pooled MCP client and a keep-alive agent with a cached token,
// swept as written. `npm run sweep -- --config examples/helpdesk/sweep.config.ts`
import { defineSweep } from '../../sweep';
import { createActivities } from './activities';
import { startHelpdeskService, type HelpdeskService } from './service';

let service: HelpdeskService | undefined;

export default defineSweep({
  name: 'helpdesk',
  label: 'helpdesk, pooled clients, no keys',
  workflowsPath: require.resolve('./workflows'),
  activities: () => createActivities(process.env.HELPDESK_URL!),
  async setup() {
    service = await startHelpdeskService();
    return { env: { HELPDESK_URL: service.url } };
  },
  teardown: () => service?.close(),
  start: ({ client, taskQueue, workflowId, workflowTaskTimeout }) =>
    client.workflow.start('helpdeskWorkflow', { taskQueue, workflowId, workflowTaskTimeout, args: [workflowId] }),
  check: ({ workflowId }) => service!.damage(workflowId),
});
