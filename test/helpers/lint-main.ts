// A child process that keeps one ESLint (its config and its type checker) loaded for the lint test:
// it reads one JSON request a line ({ code, file }) and answers each with one JSON line of messages.
import { createInterface } from 'node:readline';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });

async function main(): Promise<void> {
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const { code, file } = JSON.parse(line) as { code: string; file: string };
    try {
      const [result] = await eslint.lintText(code, { filePath: file });
      const messages = result.messages.map((m) => ({ ruleId: m.ruleId, message: m.message, line: m.line }));
      process.stdout.write(JSON.stringify({ messages }) + '\n');
    } catch (err) {
      process.stdout.write(JSON.stringify({ error: String((err as Error).stack ?? err) }) + '\n');
    }
  }
}

void main();
