// The helpdesk workflow as a Temporal user writes it: open a ticket, then mail the customer.
import { proxyActivities } from '@temporalio/workflow';
import type { HelpdeskActivities } from './activities';

const { openTicket, mailCustomer } = proxyActivities<HelpdeskActivities>({ startToCloseTimeout: '5 minutes' });

/** Opens the ticket on the ticket desk (MCP), then mails the customer about it. */
export async function helpdeskWorkflow(ticket: string): Promise<void> {
  await openTicket(ticket);
  await mailCustomer(ticket);
}
