// The crash hook is one per process: a point reached through a second copy of the module (the
// package's compiled dist/ beside its sources) reaches the hook the harness installed in the first.
import type * as CrashPoints from '../common/crash-points';

test('two loaded copies of common/crash-points share one hook', async () => {
  let first: typeof CrashPoints | undefined;
  let second: typeof CrashPoints | undefined;
  jest.isolateModules(() => {
    first = jest.requireActual<typeof CrashPoints>('../common/crash-points');
  });
  jest.isolateModules(() => {
    second = jest.requireActual<typeof CrashPoints>('../common/crash-points');
  });
  expect(first).not.toBe(second);
  const seen: string[] = [];
  first!.setCrashHook((name, ctx) => {
    seen.push(`${name} ${ctx.detail}`);
  });
  try {
    await second!.crashPoint('tool.started', { workflowId: 'w', detail: 'from the other copy' });
    expect(seen).toEqual(['tool.started from the other copy']);
  } finally {
    first!.setCrashHook(null);
  }
  await second!.crashPoint('tool.started', { workflowId: 'w', detail: 'after removal' });
  expect(seen).toHaveLength(1);
});
