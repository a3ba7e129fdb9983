// What a worker holds in secret is taken out of every message it hands on.
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { redactingActivities } from '../activities/redaction';
import { parseMcpConfig } from '../activities/mcp-config';
import { redactDeep, redactError, redactSecrets, registerSecrets, REDACTED } from '../common/secrets';
import { testLog } from './helpers/worker-logs';

registerSecrets('s3cret-value-1', 'short', 'abc', undefined);

test('registered secrets are redacted from text, nested results and errors with their causes; short values are not registered', () => {
  expect(redactSecrets('token=s3cret-value-1; short abc')).toBe(`token=${REDACTED}; short abc`);
  expect(redactDeep({ a: ['x s3cret-value-1'], n: 1, b: { c: 's3cret-value-1' } })).toEqual({
    a: [`x ${REDACTED}`],
    n: 1,
    b: { c: REDACTED },
  });
  const err = redactError(new Error('outer s3cret-value-1', { cause: new Error('inner s3cret-value-1') }));
  expect([err.message, (err.cause as Error).message]).toEqual([`outer ${REDACTED}`, `inner ${REDACTED}`]);
  expect(err.stack).not.toContain('s3cret-value-1');
});

test("the MCP configuration's secrets: values from ${VAR}, header values and their tokens, env entries named like secrets", () => {
  const text = JSON.stringify({
    mcpServers: {
      a: { command: 'x', env: { API_TOKEN: 'literal-token-1', MODE: 'production' }, args: ['--key=${K}'] },
      b: { url: 'http://h/mcp', headers: { Authorization: 'Bearer header-token-2' } },
    },
  });
  expect(parseMcpConfig(text, 'x.json', '/', { K: 'from-env-3' }).secrets?.sort()).toEqual([
    'Bearer header-token-2',
    'from-env-3',
    'header-token-2',
    'literal-token-1',
  ]);
});

test("an activity's result and error leave the worker without the secrets", async () => {
  const activities = redactingActivities({
    echo: async (text: string) => ({ output: `got ${text}` }),
    fail: async () => {
      throw ApplicationFailure.nonRetryable('the server said: bad token s3cret-value-1');
    },
  });
  const env = new MockActivityEnvironment({}, { logger: testLog });
  expect(await env.run(activities.echo, 'the s3cret-value-1')).toEqual({ output: `got the ${REDACTED}` });
  await expect(env.run(activities.fail)).rejects.toThrow(`the server said: bad token ${REDACTED}`);
});
