// Paths given as strings (worker entries, child processes, esbuild inputs, package.json, the bin, test
// helpers) are what a move breaks and the type checker does not see; so are the docs' links. Each one
// here must resolve in the tree as it is.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers/processes';

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && existsSync(path.join(ROOT, f)));
// The lint's test and this one name files that are not there on purpose.
const sources = tracked.filter(
  (f) =>
    /\.(ts|js|mjs)$/.test(f) &&
    !f.startsWith('test/fixtures/scratch-project/') &&
    !f.startsWith('test/fixtures/scratch-agent/') &&
    f !== 'test/lint.test.ts' &&
    f !== 'test/paths.test.ts',
);

/** Folders made at run time, and a config file a test names because it is not there. */
const MADE_AT_RUN_TIME = new Set(['.dev', 'no/such.config.ts']);

/** A module as `require.resolve` finds it: the file, with an extension, or a folder's index. */
function resolvesAsModule(file: string): boolean {
  return ['', '.ts', '.js', '/index.ts', '/index.js'].some((ext) => existsSync(file + ext));
}

/** Every string path in the sources, with the file that names it and where it should be. */
function stringPaths(): Array<{ where: string; path: string; module: boolean }> {
  const found: Array<{ where: string; path: string; module: boolean }> = [];
  for (const file of sources) {
    // Comments and messages name paths as examples (`require.resolve('./workflows')` for a user's config);
    // code quotes its own paths in single quotes, so double-quoted strings are messages.
    const text = readFileSync(path.join(ROOT, file), 'utf8')
      .replace(/^\s*(\*|\/\/|\/\*).*$/gm, '')
      .replace(/"[^"\n]*"/g, '""');
    const dir = path.join(ROOT, path.dirname(file));
    // path.join(ROOT, 'a', 'b.ts') and path.join/resolve(__dirname, '..', 'b.ts'): literal parts only.
    for (const m of text.matchAll(/path\.(?:join|resolve)\((ROOT|__dirname)((?:, '[^']*')+)\)/g)) {
      const parts = [...m[2].matchAll(/'([^']*)'/g)].map((p) => p[1]);
      if (MADE_AT_RUN_TIME.has(parts.join('/'))) continue;
      found.push({ where: file, path: path.join(m[1] === 'ROOT' ? ROOT : dir, ...parts), module: false });
    }
    for (const m of text.matchAll(/require\.resolve\('(\.{1,2}\/[^']+)'\)/g))
      found.push({ where: file, path: path.join(dir, m[1]), module: true });
    // A source file of this repository named from its root ('sweep/cli/crash-sweep.ts', for a child process).
    for (const m of text.matchAll(
      /'((?:sweep|workers|tracker|mcp|model|clients|common|activities|workflows|examples|codec|bin|test)\/[\w./-]+\.(?:ts|js))'/g,
    )) {
      found.push({ where: file, path: path.join(ROOT, m[1]), module: false });
    }
  }
  return found;
}

describe('paths given as strings resolve in the tree', () => {
  test('package.json: every script run through tsx, every export and the bin', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      exports: Record<string, string | { types: string; default: string }>;
      typesVersions: Record<string, Record<string, string[]>>;
      bin: Record<string, string>;
    };
    // A compiled export names dist/, which `npm run build` makes from the source of the same name.
    const source = (built: string) => built.replace(/^\.?\/?dist\//, '').replace(/(\.d\.ts|\.js)$/, '.ts');
    const built = [
      ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [] : [e.types, e.default])),
      ...Object.values(pkg.typesVersions['*']).flat(),
    ];
    const build = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    expect(
      built
        .map(source)
        .filter((f) => !build.include.some((i) => i === f || (i === 'lib/*.ts' && /^lib\/[^/]+\.ts$/.test(f)))),
    ).toEqual([]);
    const named = [
      ...Object.values(pkg.scripts).flatMap((s) => [...s.matchAll(/tsx ([\w./-]+\.ts)/g)].map((m) => m[1])),
      ...Object.values(pkg.exports).filter((e): e is string => typeof e === 'string'),
      ...built.map(source),
      ...Object.values(pkg.bin),
    ];
    expect(named.length).toBeGreaterThan(15);
    expect(named.filter((f) => !existsSync(path.join(ROOT, f)))).toEqual([]);
  });

  test('string paths in the sources: path.join(ROOT | __dirname, ...), require.resolve, files named from the root', () => {
    const found = stringPaths();
    // The worker entries, the receivers' and the dev server's children, the bin's CLI, the test helpers'.
    for (const entry of [
      'agent-sweep/worker-main.ts',
      'sweep/config/worker-main.ts',
      'sweep/hosts/dev-server-main.ts',
      'agent-sweep/mcp-main.ts',
      'agent-sweep/tracker-main.ts',
      'sweep/cli/crash-sweep.ts',
    ]) {
      expect(found.map((f) => path.relative(ROOT, f.path))).toContain(entry);
    }
    const missing = found.filter((f) => !(f.module ? resolvesAsModule(f.path) : existsSync(f.path)));
    expect(missing.map((f) => `${f.where}: ${path.relative(ROOT, f.path)}`)).toEqual([]);
  });

  test('the check itself fails on a path that is not there', () => {
    expect(resolvesAsModule(path.join(ROOT, 'sweep', 'no-such-module'))).toBe(false);
    expect(resolvesAsModule(path.join(ROOT, 'sweep', 'plugin'))).toBe(true);
  });
});

describe('links in the README and docs/ resolve', () => {
  const pages = tracked.filter(
    (f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')) || f === 'testdata/README.md',
  );

  test('every relative link names a file or folder of the tree, and every #anchor a heading of its page', () => {
    expect(pages.length).toBeGreaterThan(5);
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(path.join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/i.test(target)) continue; // http:, mailto:: not ours to check here
        const [file, anchor] = target.split('#');
        const abs = file ? path.join(ROOT, path.dirname(page), file) : path.join(ROOT, page);
        if (!existsSync(abs)) {
          broken.push(`${page}: ${target}`);
          continue;
        }
        if (anchor && abs.endsWith('.md') && !anchors(readFileSync(abs, 'utf8')).has(anchor))
          broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the README is a first page, and its folder map is the tree', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  /** The tracked folders at the root, and one level down in sweep/ and examples/. */
  const folders = [
    ...new Set(
      tracked.flatMap((f) => {
        const parts = f.split('/');
        if (parts.length < 2 || parts[0].startsWith('.')) return [];
        return ['sweep', 'examples'].includes(parts[0]) && parts.length > 2
          ? [parts[0], `${parts[0]}/${parts[1]}`]
          : [parts[0]];
      }),
    ),
  ];
  /** The names a page's map gives in backquotes in its first column: `lib/`, or `engine/` inside `sweep/`'s row. */
  const mapped = (page: string) =>
    readFileSync(path.join(ROOT, page), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => {
        const [first, what] = line.split(' | ');
        const named = [...first.matchAll(/`([\w./-]+)\/`/g)].map((m) => m[1]);
        // A row for sweep/ or examples/ names the folders in it in its second column.
        const inside = named.length === 1 && ['sweep', 'examples'].includes(named[0]);
        return inside ? [...named, ...[...what.matchAll(/`([\w-]+)\/`/g)].map((m) => `${named[0]}/${m[1]}`)] : named;
      });

  test('at most 200 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  test("the README's map names every folder of the tree, and no folder that is not there", () => {
    const named = mapped('README.md');
    expect(folders.filter((f) => !named.includes(f))).toEqual([]);
    expect(named.filter((f) => !existsSync(path.join(ROOT, f)))).toEqual([]);
  });

  test('docs/layout.md says what every folder holds, and names none that is not there', () => {
    const named = mapped('docs/layout.md').concat(
      // Its rows name a folder in its own row (`sweep/engine/`) or beside another (`tracker/`, `model/`).
      readFileSync(path.join(ROOT, 'docs/layout.md'), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .flatMap((line) => [...line.split(' | ')[0].matchAll(/`([\w./-]+)\/`/g)].map((m) => m[1])),
    );
    expect(folders.filter((f) => f !== 'sweep' && f !== 'examples' && !named.includes(f))).toEqual([]);
    expect(named.filter((f) => !existsSync(path.join(ROOT, f)))).toEqual([]);
  });
});

describe('how long things take is said in one place', () => {
  test('no page but docs/benchmarks.md, and no help text, gives a running time in minutes: they link to it', () => {
    const said = tracked
      .filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')) || f.startsWith('sweep/cli/'))
      .filter((f) => f !== 'docs/benchmarks.md')
      .flatMap((f) =>
        readFileSync(path.join(ROOT, f), 'utf8')
          .split('\n')
          .filter((line) => /(about|~)\s*\d+\s*min/.test(line))
          .map((line) => `${f}: ${line.trim()}`),
      );
    expect(said).toEqual([]);
  });
});

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): Set<string> {
  const headings = markdown.replace(/```[\s\S]*?```/g, '').match(/^#{1,6} .+$/gm) ?? [];
  return new Set(
    headings.map((h) =>
      h
        .replace(/^#+ /, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}
