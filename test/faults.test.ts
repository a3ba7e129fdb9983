// The fault model: one file per fault, one list of them, names a config row can use, and what a row's faults add up to.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  FAULTS,
  activityOperationOf,
  declaredPartitionOf,
  NAMEABLE_FAULTS,
  faultNamed,
  firstPassOnly,
  pinsRuns,
  receiverDeathOf,
  receiverDies,
  reset,
  retry,
  serverDeathOf,
  serverDies,
  slowReceiver,
  slowReceiverOf,
  throwAtPoint,
  toleranceOf,
} from '../sweep/faults';
import { waitForServer } from '../sweep/faults/fault';
import { configProblems, loadSweepConfig } from '../sweep/config/load-config';
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
    // The agent's partition in front of its tracker: a config's partition names its receiver.
    expect(() => faultNamed('partition:request-lost')).toThrow(
      /fault "partition:request-lost" names no receiver the config declares/,
    );
    // A fault the sweep knows that a row names otherwise: refused with that reason.
    expect(() => faultNamed('new-build:next')).toThrow(
      /fault "new-build:next" is not one a config row may name: a row names its next build with nextBuild/,
    );
    expect(() => faultNamed('activity-operation:unplug')).toThrow(/unknown fault "activity-operation:unplug"/);
    expect(() => faultNamed('reset:yesterday')).toThrow(/unknown fault "reset:yesterday"/);
    expect(() => faultNamed('retry:3')).toThrow(/unknown fault "retry:3"/);
    expect(() => faultNamed('throw-at-point')).toThrow(/unknown fault "throw-at-point"/);
  });

  test('a receiver a config declares: it may die or be slow by its name, and a name it does not declare is refused', () => {
    const shop = { name: 'shop', activities: ['charge', 'reserve'] };
    const dies = faultNamed('receiver-dies:shop', [shop]);
    expect(dies).toMatchObject({ name: 'receiver-dies:shop', kind: 'receiver-dies', target: 'receiver' });
    expect(receiverDeathOf({ faults: [dies] })).toEqual({ receiver: 'declared', name: 'shop' });
    // The engine strikes clean runs too: a workflow without keys shows damage with no kill.
    expect(toleranceOf({ faults: [dies] })).toEqual({ retries: true, slowActivities: [], damagedWithoutKills: true });
    const slow = faultNamed('slow-receiver:shop', [shop]);
    expect(slow.name).toBe('slow-receiver:shop');
    expect(slowReceiverOf({ faults: [slow] })).toBe('shop');
    // Its callers may time out in a live worker, and each run waits out a timeout: the first pass only.
    expect(toleranceOf({ faults: [slow] }).slowActivities).toEqual(['charge', 'reserve']);
    expect(firstPassOnly({ faults: [slow] })).toBe(true);
    // A name no receiver has is the older form: the activities of the user's own slow receiver.
    expect(slowReceiverOf({ faults: [faultNamed('slow-receiver:charge', [shop])] })).toBeUndefined();
    expect(() => faultNamed('receiver-dies:mail', [shop])).toThrow(
      /fault "receiver-dies:mail" names no receiver the config declares \(its receivers: shop\)/,
    );
    expect(() => faultNamed('receiver-dies:shop')).toThrow(/names no receiver the config declares \(it declares none/);
    // The agent's own receivers are not a config's.
    expect(() => faultNamed('receiver-dies:tracker-received', [shop])).toThrow(/names no receiver the config declares/);
    // A partition in front of it, and an operator acting on the call stuck there.
    const lost = faultNamed('partition:shop:reply-lost', [shop]);
    expect(declaredPartitionOf({ faults: [lost] })).toEqual({ receiver: 'shop', lost: 'reply' });
    expect(toleranceOf({ faults: [lost] }).slowActivities).toEqual(['charge', 'reserve']);
    expect(faultNamed('partition:shop:request-lost', [shop]).name).toBe('partition:shop:request-lost');
    expect(() => faultNamed('partition:mail:reply-lost', [shop])).toThrow(/names no receiver the config declares/);
    expect(activityOperationOf({ faults: [faultNamed('activity-operation:options', [shop])] })).toBe('options');
  });

  test("a config's receivers are checked where the config is loaded, each problem on a line", () => {
    const config = {
      workflowsPath: 'x',
      activities: () => ({}),
      start: () => Promise.reject(new Error('not started')),
      check: () => ({ dups: 0, missing: 0 }),
      receivers: [
        { name: 'shop', script: __filename, urlEnv: 'SHOP_URL', activities: ['charge'] },
        { name: 'shop', script: '/nowhere/shop.ts', urlEnv: 'shop url', activities: [], env: { A: 1 }, prot: 1 },
        'mail',
      ],
      rows: [
        { name: 'a', faults: ['receiver-dies:shop', 'receiver-dies:mail'] },
        { name: 'b', faults: ['activity-operation:pause'] },
      ],
    };
    expect(configProblems(config)).toEqual([
      'receivers[1].prot is not a receiver field',
      'receivers[1].name "shop" is declared twice',
      'receivers[1].urlEnv is "shop url", not the name of an environment variable',
      'receivers[1].script /nowhere/shop.ts is not there (give its path: require.resolve of your script)',
      'receivers[1].activities is empty: name the activity types that call it',
      'receivers[1].env.A is not a string',
      'receivers[2] is not a receiver ({ name, script, urlEnv, activities })',
      'rows[0].faults: fault "receiver-dies:mail" names no receiver the config declares (its receivers: shop, shop)',
      'rows[1].faults: an activity operation acts on a call stuck behind a partition that lost its reply: name partition:RECEIVER:reply-lost in the same row',
    ]);
    const good = { ...config, receivers: [config.receivers[0]], rows: [{ name: 'a', faults: ['receiver-dies:shop'] }] };
    expect(configProblems(good)).toEqual([]);
    expect(configRows(good as never, 'x.config.ts')[0].faults?.map((f) => f.name)).toEqual(['receiver-dies:shop']);
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
