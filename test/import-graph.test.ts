// The rooms import one another one way: no module imports, even for a type, a module that imports
// it back through any chain. ESLint's rules say which folder may import which; this says there is no
// loop at all, over every source file of the repository but the tests.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from './helpers/processes';

/** The repository's TypeScript sources (not the tests, fixtures or declaration files). */
const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && !f.startsWith('test/') && !f.endsWith('.d.ts') && existsSync(path.join(ROOT, f)));

/** The relative imports of each file, resolved to files of the tree (type imports too). */
function importGraph(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const resolve = (from: string, spec: string) => {
    const base = path.posix.join(path.posix.dirname(from), spec);
    return [base, `${base}.ts`, `${base}/index.ts`].find((f) => known.has(f));
  };
  return new Map(
    files.map((f) => [
      f,
      ts
        .preProcessFile(read(f), true, true)
        .importedFiles.filter((i) => i.fileName.startsWith('.'))
        .flatMap((i) => resolve(f, i.fileName) ?? []),
    ]),
  );
}

/** The loops of a graph: each strongly connected set of more than one file (Tarjan's algorithm), sorted. */
function loops(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      set.push(w);
      if (w === v) break;
    }
    if (set.length > 1 || graph.get(v)?.includes(v)) found.push(set.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph', () => {
  test('no module imports itself back through any chain, even for a type', () => {
    const graph = importGraph(sources, (f) => readFileSync(path.join(ROOT, f), 'utf8'));
    expect(sources.length).toBeGreaterThan(200);
    expect([...graph.values()].flat().length).toBeGreaterThan(500);
    expect(loops(graph)).toEqual([]);
  });

  test('the check finds a loop of two files, one importing the other for a type only', () => {
    const files: Record<string, string> = {
      'a/columns.ts': "import type { Outcome } from './counting';\nexport const x = 1;\n",
      'a/counting.ts': "import { x } from './columns';\nexport type Outcome = typeof x;\n",
      'a/other.ts': "import { x } from './columns';\n",
    };
    expect(loops(importGraph(Object.keys(files), (f) => files[f]))).toEqual([['a/columns.ts', 'a/counting.ts']]);
  });
});
