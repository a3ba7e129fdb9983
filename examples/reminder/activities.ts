// The reminder's activities as a user writes them: the mail names the customer, not the case or the run.
/** The reminder's activities, against the services at `serviceUrl`. */
export type ReminderActivities = ReturnType<typeof createActivities>;

export function createActivities(serviceUrl: string) {
  const post = async (path: string, body: unknown): Promise<void> => {
    const res = await fetch(`${serviceUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  };
  return {
    async openCase(caseId: string): Promise<void> {
      await post('/cases', { caseId });
    },
    async mailReminder(to: string): Promise<void> {
      await post('/mail', { to, subject: 'We are waiting for your answer' });
    },
  };
}
