// The weather agent's activities, as a user writes them: the weather (read-only) and a mail that acts.
import { Context } from '@temporalio/activity';
import { activityKey } from '../../lib/activity';

/** The example's activities, against the mail service at `mailUrl`; `keys`: send each call's key. */
export function createActivities(mailUrl: string, { keys }: { keys: boolean }) {
  return {
    /** Read-only: asking twice changes nothing. */
    async getWeather({ location }: { location: string }): Promise<string> {
      return `Sunny, 21 °C in ${location}`;
    },

    /** Sends a mail. With `keys`, the call's key (`toolActivities` made it from the tool-call id) goes with it. */
    async sendEmail({ to, subject, body }: { to: string; subject: string; body: string }): Promise<string> {
      const run = Context.current().info.workflowExecution?.workflowId ?? '';
      const res = await fetch(`${mailUrl}/mails`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(keys ? { 'Idempotency-Key': activityKey() } : {}) },
        body: JSON.stringify({ to, subject, body, run }),
      });
      if (!res.ok) throw new Error(`mail service: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      return `sent ${id}`;
    },
  };
}

export type WeatherActivities = ReturnType<typeof createActivities>;
