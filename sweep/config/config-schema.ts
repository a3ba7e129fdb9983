// Every field a sweep config may have, at each level, with its type and default: what the loader checks
// (a field not here is refused, with the nearest name), and what docs/config.md's field list is made from.
import { unknownKeys } from '../../common/fields';

/** One field of a config, a row or the points. */
export interface FieldSpec {
  /** The type as a user reads it. */
  type: string;
  /** Whether a value is of the type (its finer checks, an enum's values, are the loader's). */
  is: (value: unknown) => boolean;
  required?: boolean;
  /** What it is when not given, as a user reads it. */
  default?: string;
  /** One line. */
  doc: string;
}

/** The fields of one level (a config, a row, the points), by name, and what the level is called. */
export interface Level {
  /** `config`, `row`, `points`: the words of the refusal (`plugns is not a config field`). */
  noun: string;
  fields: Record<string, FieldSpec>;
}

const isString = (v: unknown) => typeof v === 'string';
const isFunction = (v: unknown) => typeof v === 'function';
const isBoolean = (v: unknown) => typeof v === 'boolean';
const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown) => Array.isArray(v) && v.every(isString);

/** A row of a config with `rows`. */
export const ROW: Level = {
  noun: 'row',
  fields: {
    name: { type: 'string', is: isString, required: true, doc: 'the row, for `--variant`' },
    label: { type: 'string', is: isString, default: 'the name', doc: 'the row in the table' },
    slowActivities: {
      type: 'string[]',
      is: isStrings,
      default: 'none',
      doc: 'activity types whose receiver is slower than their timeout in this row (they may time out in a live worker)',
    },
    firstPassOnly: { type: 'boolean', is: isBoolean, default: 'false', doc: 'no second pass for the row' },
    serverDies: {
      type: "'worker-survives' | 'worker-dies'",
      is: isString,
      default: 'none',
      doc: 'the Temporal server is killed at each point instead of the worker',
    },
    reset: {
      type: "'last-task' | 'first-task'",
      is: isString,
      default: 'none',
      doc: 'at each point the worker dies and a person resets the run',
    },
    faults: { type: 'string[]', is: isStrings, default: 'none', doc: 'any of the sweep’s faults by name' },
    nextBuild: {
      type: 'string (a path)',
      is: isString,
      default: 'none',
      doc: 'the workflows of the next build, which every worker after the first kill runs',
    },
    versioning: {
      type: "'unversioned' | 'pinned' | 'auto-upgrade'",
      is: isString,
      default: "'unversioned'",
      doc: 'how the next build is deployed',
    },
    control: {
      type: 'boolean',
      is: isBoolean,
      default: 'false',
      doc: 'the row is known to do damage and must show some',
    },
  },
};

/** `points`: which automatic points the sweep's plugin records. */
export const POINTS: Level = {
  noun: 'points',
  fields: {
    activities: { type: 'boolean', is: isBoolean, default: 'true', doc: '`activity.started` and `activity.returned`' },
    http: { type: 'boolean', is: isBoolean, default: 'true', doc: '`http.accepted` for activities’ requests' },
    waits: { type: 'boolean', is: isBoolean, default: 'true', doc: '`workflow.waiting` when a run waits for a signal' },
    runHeader: {
      type: 'boolean',
      is: isBoolean,
      default: 'false',
      doc: 'every activity request carries `x-crash-sweep-workflow-id`',
    },
  },
};

/** A receiver the sweep hosts (`receivers`). */
export const RECEIVER: Level = {
  noun: 'receiver',
  fields: {
    name: { type: 'string', is: isString, required: true, doc: 'the receiver, in fault names (`receiver-dies:NAME`)' },
    script: {
      type: 'string (a path)',
      is: isString,
      required: true,
      doc: 'a Node script that listens on 127.0.0.1 at `PORT` and keeps its records under `DATA_DIR`',
    },
    urlEnv: {
      type: 'string',
      is: isString,
      required: true,
      doc: 'the variable that gives your activities its URL (the sweep’s proxy in front of it)',
    },
    activities: {
      type: 'string[]',
      is: isStrings,
      required: true,
      doc: 'the activity types that call it (their timeouts may run out while it is slow)',
    },
    env: { type: 'Record<string, string>', is: isObject, default: 'none', doc: 'more variables for its process' },
  },
};

/** A config file's default export. */
export const CONFIG: Level = {
  noun: 'config',
  fields: {
    name: { type: 'string', is: isString, default: 'the file’s name', doc: 'the row (of a config without `rows`)' },
    label: { type: 'string', is: isString, default: 'the name', doc: 'the row in the table' },
    control: {
      type: 'boolean',
      is: isBoolean,
      default: 'false',
      doc: 'the row is known to do damage and must show some',
    },
    rows: { type: 'row[]', is: (v) => Array.isArray(v), default: 'one row', doc: 'several rows from one file (below)' },
    workflowsPath: {
      type: 'string (a path)',
      is: isString,
      required: true,
      doc: 'your workflows, as for `Worker.create`',
    },
    activities: {
      type: '() => object',
      is: isFunction,
      required: true,
      doc: 'your activities, made in each worker process',
    },
    plugins: {
      type: 'WorkerPlugin[]',
      is: (v) => Array.isArray(v),
      default: 'none',
      doc: 'Temporal worker plugins, for the bundle and every worker',
    },
    receivers: {
      type: 'receiver[]',
      is: (v) => Array.isArray(v),
      default: 'none',
      doc: 'receivers the sweep hosts, so its receiver faults can strike them (below)',
    },
    setup: {
      type: '() => { env? }',
      is: isFunction,
      default: 'none',
      doc: 'starts your services, before anything runs',
    },
    teardown: { type: '() => void', is: isFunction, default: 'none', doc: 'stops them' },
    start: { type: '(ctx) => WorkflowHandle', is: isFunction, required: true, doc: 'starts one run' },
    check: { type: '(ctx) => counts', is: isFunction, required: true, doc: 'counts one ended run’s damage' },
    person: { type: '(ctx) => void', is: isFunction, default: 'none', doc: 'answers a run that waits for a signal' },
    points: { type: 'points', is: isObject, default: 'all', doc: 'which automatic points to record (below)' },
    activityTimeouts: {
      type: "'capped' | 'own'",
      is: isString,
      default: "'capped'",
      doc: 'cap the runs’ activity timeouts to what a sweep can wait, or keep yours',
    },
  },
};

/**
 * Why `value` does not fit `level`, one line per field, each beginning with its path (`rows[1].labl`):
 * a field the level does not have (with the nearest name, when one is near), a field of the wrong
 * type, a required one missing. Finer checks (an enum's values, a fault's name) are the loader's.
 */
export function fieldProblems(value: Record<string, unknown>, level: Level, at = ''): string[] {
  const problems: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const spec = level.fields[key];
    if (!spec)
      problems.push(
        ...unknownKeys({ [key]: v }, Object.keys(level.fields), `a ${level.noun} field`).map((p) => at + p),
      );
    else if (v !== undefined && !spec.is(v)) problems.push(`${at}${key} is ${describe(v)}, not ${spec.type}`);
  }
  for (const [key, spec] of Object.entries(level.fields))
    if (spec.required && value[key] === undefined) problems.push(`${at}${key} is missing (${spec.type}: ${spec.doc})`);
  return problems;
}

/** What a value is, in a refusal. */
function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v === 'function' ? 'a function' : `the ${typeof v} ${String(v)}`}`;
}

/** docs/config.md's field list: a table per level, made from the specs above. */
export function fieldTables(): string {
  const table = (title: string, level: Level) =>
    [
      `**${title}**`,
      '',
      '| field | type | default | what |',
      '| --- | --- | --- | --- |',
      ...Object.entries(level.fields).map(
        // A `|` inside a cell, even in code, ends the cell: escaped.
        ([name, f]) =>
          `| \`${name}\` | \`${f.type.replace(/\|/g, '\\|')}\` | ${f.required ? 'required' : f.default} | ${f.doc} |`,
      ),
    ].join('\n');
  return [
    table('The config', CONFIG),
    table('A row (`rows`)', ROW),
    table('A receiver (`receivers`)', RECEIVER),
    table('`points`', POINTS),
  ].join('\n\n');
}
