// Where a failed workflow task's stack says the user's code threw: the line the sweep prints when a
// clean run's task fails (sweep/judge/stuck.ts `codeLine`).
import path from 'node:path';
import { codeLine } from '../sweep/judge/stuck';

test("the first frame in the user's code, past the bundle's header, the SDK's and the packages' frames", () => {
  const stack = [
    '/tmp/sweep-Wb3ddG/config-workflow-bundle.js:6627',
    '            throw this.workflowTaskError;',
    '            ^',
    '',
    'ReferenceError: TransformStream is not defined',
    '    at new Foo (/app/node_modules/ai/dist/index.js:10:5)',
    '    at webpack/bootstrap:19:1',
    '    at toolsAgent (/app/src/workflows.ts:12:17)',
    '    at run (/app/src/other.ts:3:1)',
  ].join('\n');
  expect(codeLine(stack)).toBe('/app/src/workflows.ts:12:17');
});

test('a frame without a function name, and one under the working folder, said from it', () => {
  const file = path.join(process.cwd(), 'src', 'workflows.ts');
  expect(codeLine(`Error: x\n    at ${file}:4:2`)).toBe(path.join('src', 'workflows.ts') + ':4:2');
});

test('no frame in user code: nothing', () => {
  expect(codeLine('Error: x\n    at f (/app/node_modules/@temporalio/workflow/lib/worker.js:1:1)')).toBeUndefined();
  expect(codeLine('')).toBeUndefined();
});
