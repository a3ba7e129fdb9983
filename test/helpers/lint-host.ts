// The lint test's side of test/helpers/lint-main.ts: one ESLint process for the whole file, asked
// to lint one text at a time as a file of the project (as `eslint --stdin --stdin-filename` does).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { ROOT } from './processes';

export type LintMessage = { ruleId: string | null; message: string; line: number };

export class LintHost {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<{ resolve: (m: LintMessage[]) => void; reject: (e: Error) => void }> = [];
  private stderr = '';

  constructor() {
    this.child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'helpers', 'lint-main.ts')], {
      cwd: ROOT,
    });
    this.child.stderr.on('data', (d) => (this.stderr += d));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const answer = JSON.parse(line) as { messages?: LintMessage[]; error?: string };
      const next = this.waiting.shift();
      if (!next) return;
      if (answer.messages) next.resolve(answer.messages);
      else next.reject(new Error(`eslint failed: ${answer.error}`));
    });
    this.child.on('close', (code) => {
      for (const w of this.waiting.splice(0)) w.reject(new Error(`eslint exited with ${code}: ${this.stderr}`));
    });
  }

  /** The messages ESLint gives `code` linted as the project's file `file` (relative to the root). */
  lint(code: string, file: string): Promise<LintMessage[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(JSON.stringify({ code, file: path.join(ROOT, file) }) + '\n');
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('close', () => resolve());
      this.child.stdin.end();
    });
  }
}
