// The trip example's sweep config, naive or keyed: the service, how a run starts, and how damage is counted.
import { defineSweep, type SweepConfig } from '../../sweep';
import { createActivities } from './activities';
import { startTravelService, type TravelService } from './service';

/**
 * The trip saga's sweep config, naive (no keys: a booking retried after a kill books twice, and the
 * compensation cancels only the copy the workflow heard of) or keyed (`keyedActivities`; the service
 * answers a key it has seen with its first answer). Every trip fails by design (the airline declines):
 * that is the clean run's end, so a run that ends so is not damage; a booking left standing is.
 */
export function tripSweep(keyed: boolean): SweepConfig {
  let service: TravelService | undefined;
  return defineSweep({
    name: keyed ? 'trip-keyed' : 'trip-naive',
    label: keyed ? 'trip saga, keys the service honours' : 'trip saga, naive',
    workflowsPath: require.resolve('./workflows'),
    activities: () => createActivities(process.env.TRAVEL_URL!, { keys: keyed }),
    async setup() {
      service = await startTravelService({ honourKeys: keyed });
      return { env: { TRAVEL_URL: service.url } };
    },
    teardown: () => service?.close(),
    start: ({ client, taskQueue, workflowId, workflowTaskTimeout }) =>
      client.workflow.start(keyed ? 'keyedTripWorkflow' : 'tripWorkflow', {
        taskQueue,
        workflowId,
        workflowTaskTimeout,
        args: [workflowId],
      }),
    check: ({ workflowId }) => service!.damage(workflowId),
  });
}
