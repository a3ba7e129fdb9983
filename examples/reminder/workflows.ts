// A support case as a Temporal user writes it: open it, wait two days for the customer, and mail a
// reminder if no answer came.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ReminderActivities } from './activities';

/** The customer answered the case. */
export const answeredSignal = defineSignal('answered');

const { openCase, mailReminder } = proxyActivities<ReminderActivities>({ startToCloseTimeout: '5 minutes' });

/** Opens the case; after two days with no answer, mails the customer a reminder. */
export async function reminderWorkflow(caseId: string, customer: string): Promise<'answered' | 'reminded'> {
  let answered = false;
  setHandler(answeredSignal, () => void (answered = true));
  await openCase(caseId);
  if (await condition(() => answered, '2 days')) return 'answered';
  await mailReminder(customer);
  return 'reminded';
}
