import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './helpers/processes';

// `npm run lint` guards workflow code's determinism: these are the mistakes it must stop. ESLint runs
// as its own process, as `npm run lint` runs it (its config is an ES module, which jest cannot load).

type Result = { filePath: string; messages: Array<{ ruleId: string | null; message: string; line: number }> };

function eslint(args: string[], stdin?: string): Promise<Result[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--format', 'json', ...args], { cwd: ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', () => {
      try {
        resolve(JSON.parse(out) as Result[]);
      } catch {
        reject(new Error(`eslint printed no report: ${err || out}`));
      }
    });
    child.stdin.end(stdin ?? '');
  });
}

async function problems(code: string, file = 'workflows/example.ts'): Promise<string[]> {
  const [result] = await eslint(['--stdin', '--stdin-filename', file], code);
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('the determinism lint on workflow code', () => {
  test('Node built-ins and I/O modules are refused in workflows/, with the reason', async () => {
    expect(await problems("import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toEqual([expect.stringMatching(/no-restricted-imports: .*workflow code may do no I\/O/)]);
    expect(await problems("import OpenAI from 'openai';\nexport const x = OpenAI;\n")).toEqual([expect.stringMatching(/no-restricted-imports/)]);
  });

  test('activities are imported as types only', async () => {
    expect(await problems("import { createActivities } from '../activities';\nexport const x = createActivities;\n")).toEqual([expect.stringMatching(/import activities as types only/)]);
    expect(await problems("import type { AgentActivities } from '../activities';\nexport type X = AgentActivities;\n")).toEqual([]);
  });

  test('Math.random, process and performance are refused', async () => {
    expect(await problems('export const x = Math.random();\n')).toEqual([expect.stringMatching(/no-restricted-properties: .*not deterministic on replay/)]);
    expect(await problems('export const x = process.env.HOME;\n')).toEqual([expect.stringMatching(/no-restricted-globals/)]);
    expect(await problems('export const x = performance.now();\n')).toEqual([expect.stringMatching(/no-restricted-globals/)]);
  });

  test('the same code outside workflows/ is fine', async () => {
    expect(await problems("import { readFileSync } from 'node:fs';\nexport const x = [readFileSync, Math.random()];\n", 'activities/example.ts')).toEqual([]);
  });

  test('the repository itself is clean', async () => {
    const results = await eslint(['.']);
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}:${m.line} ${m.ruleId}`))).toEqual([]);
  }, 120_000);
});
