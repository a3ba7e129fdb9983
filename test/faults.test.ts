// The fault model: one file per fault, one list of them, names a config row can use, and what a row's faults add up to.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  FAULTS,
  NAMEABLE_FAULTS,
  faultNamed,
  firstPassOnly,
  pinsRuns,
  receiverDies,
  reset,
  retry,
  serverDeathOf,
  serverDies,
  slowReceiver,
  throwAtPoint,
  toleranceOf,
} from '../sweep/faults';
import { waitForServer } from '../sweep/faults/fault';
import { loadSweepConfig } from '../sweep/config/load-config';
import { configRows } from '../sweep/config/config-suite';

const ROOT = path.join(__dirname, '..');
const FOLDER = path.join(ROOT, 'sweep', 'faults');

describe('the fault list', () => {
  test('every file of sweep/faults/ declares a kind the list holds, and every kind in the list has its file', () => {
    const files = readdirSync(FOLDER)
      .filter((f) => f.endsWith('.ts') && f !== 'fault.ts' && f !== 'index.ts')
      .map((f) => f.replace(/\.ts$/, ''));
    const kinds = new Set(FAULTS.map((f) => f.kind));
    expect([...kinds].sort()).toEqual([...files].sort());
  });

  test('names are unique, and each says what it does', () => {
    const names = FAULTS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of FAULTS) expect(f.summary.length).toBeGreaterThan(10);
  });
});

describe('a fault by name (a config row)', () => {
  test('each name makes the fault of that name', () => {
    for (const name of [
      'worker-dies',
      'server-dies:worker-dies',
      'server-dies:worker-survives',
      'reset:last-task',
      'reset:first-task',
      'retry',
      'cancel',
      'terminate',
      'throw-at-point:shop.charge',
      'slow-receiver:charge,reserve',
    ])
      expect(faultNamed(name).name).toBe(name);
  });

  test('docs/config.md lists the names a row may use, as the one list has them', () => {
    const docs = readFileSync(path.join(ROOT, 'docs', 'config.md'), 'utf8');
    const paragraph = docs.slice(docs.indexOf("A row may name any of the sweep's faults"));
    const listed = [...paragraph.slice(0, paragraph.indexOf('\n\n')).matchAll(/`([a-z][\w:,[\]A-Z-]*)`/g)].map(
      (m) => m[1],
    );
    expect(listed.filter((f) => f !== 'faults')).toEqual(NAMEABLE_FAULTS.flatMap((n) => n.forms));
  });

  test('an unknown name, or a bad setting, is refused with the names a row may use', () => {
    expect(() => faultNamed('flood')).toThrow(/unknown fault "flood" \(faults a config row may name: worker-dies, /);
    // A fault the sweep knows, but of receivers it hosts itself: refused with that reason.
    expect(() => faultNamed('partition:request-lost')).toThrow(
      /fault "partition:request-lost" is not one a config row may name: it strikes receivers the sweep hosts itself/,
    );
    expect(() => faultNamed('new-build:next')).toThrow(/a row names its next build with nextBuild/);
    expect(() => faultNamed('activity-operation:pause')).toThrow(
      /not one a config row may name: it acts on a call stuck at a receiver the sweep hosts itself/,
    );
    expect(() => faultNamed('reset:yesterday')).toThrow(/unknown fault "reset:yesterday"/);
    expect(() => faultNamed('retry:3')).toThrow(/unknown fault "retry:3"/);
    expect(() => faultNamed('throw-at-point')).toThrow(/unknown fault "throw-at-point"/);
  });

  test("a config row's fields and its faults become the row's faults; a bad one fails the config's load", () => {
    const rows = configRows(
      {
        workflowsPath: 'x',
        activities: () => ({}),
        start: () => Promise.reject(new Error('not started')),
        check: () => ({ dups: 0, missing: 0 }),
        rows: [
          { name: 'a', serverDies: 'worker-dies' },
          { name: 'b', reset: 'first-task', faults: ['retry'], control: true },
          { name: 'c', nextBuild: 'next' },
          { name: 'd', nextBuild: 'next', versioning: 'pinned' },
        ],
      },
      'x.config.ts',
    );
    expect(rows.map((r) => r.faults?.map((f) => f.name))).toEqual([
      ['server-dies:worker-dies'],
      ['reset:first-task', 'retry'],
      ['new-build:c'],
      ['new-build:d:pinned'],
    ]);
    expect(rows.map((r) => r.control ?? false)).toEqual([false, true, false, false]);
    // Only a pinned deploy keeps each run on the build that started it.
    expect(rows.map((r) => pinsRuns(r))).toEqual([false, false, false, true]);
    expect(() => loadSweepConfig(path.join(__dirname, 'fixtures', 'configs', 'bad-fault.config.js'))).toThrow(
      /rows\[0\]\.faults: unknown fault "flood"/,
    );
    expect(() => loadSweepConfig(path.join(__dirname, 'fixtures', 'configs', 'bad-fault.config.js'))).toThrow(
      /rows\[0\]\.control is the text "yes", not boolean/,
    );
    expect(() => loadSweepConfig(path.join(__dirname, 'fixtures', 'configs', 'bad-fault.config.js'))).toThrow(
      /rows\[1\]\.versioning is "blue-green", not 'unversioned' or 'pinned' or 'auto-upgrade'/,
    );
    expect(() => loadSweepConfig(path.join(__dirname, 'fixtures', 'configs', 'bad-fault.config.js'))).toThrow(
      /rows\[2\]\.versioning is given without nextBuild/,
    );
  });
});

describe("what a row's faults add up to", () => {
  test('tolerances join; the first pass alone if the row or a fault says so; the server death of the row', () => {
    const row = {
      faults: [throwAtPoint('tracker.accepted'), slowReceiver({ activities: ['runTool'], damagedWithoutKills: true })],
    };
    expect(toleranceOf(row)).toEqual({ retries: true, slowActivities: ['runTool'], damagedWithoutKills: true });
    expect(toleranceOf({})).toEqual({ retries: false, slowActivities: [], damagedWithoutKills: false });
    expect(firstPassOnly(row)).toBe(false);
    expect(firstPassOnly({ faults: [slowReceiver({ activities: ['x'], firstPassOnly: true })] })).toBe(true);
    expect(firstPassOnly({ firstPassOnly: true })).toBe(true);
    expect(serverDeathOf({ faults: [reset('last-task'), serverDies('worker-survives')] })).toBe('worker-survives');
    expect(serverDeathOf({ faults: [retry, receiverDies({ receiver: 'mcp' })] })).toBeUndefined();
  });
});

describe('waiting for the server to carry out an operation', () => {
  test('asks until the answer is yes, and says what did not happen once the time is up', async () => {
    let asked = 0;
    await waitForServer(async () => ++asked === 3, { withinMs: 5_000, everyMs: 1, tooLong: () => 'never' });
    expect(asked).toBe(3);
    await expect(
      waitForServer(async () => false, { withinMs: 20, everyMs: 5, tooLong: () => 'the pause never took' }),
    ).rejects.toThrow('the pause never took');
  });
});
