// The crash-sweep worker plugin: records crash points in any worker, with no change to its code.
import type {
  ActivityInterceptorsFactory,
  BundleOptions,
  BundlerPlugin,
  WorkerOptions,
  WorkerPlugin,
} from '@temporalio/worker';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { crashPoint, type PointName } from '../../common/crash-points';
import { watchHttp } from './http-points';
import { addRunHeader } from './run-header';

/** Which automatic points the plugin records. Every one is on unless turned off. */
export interface CrashSweepPluginOptions {
  /** `activity.started <type>` and `activity.returned <type>`. */
  activities?: boolean;
  /** `http.accepted <METHOD host path>` for requests made by activities (`fetch` and `node:http`). */
  http?: boolean;
  /** `workflow.waiting <signals>` when a workflow task leaves the run blocked on a condition (else such tasks are `workflow.decided`). */
  waits?: boolean;
  /**
   * Not a point: every HTTP request an activity makes carries `x-crash-sweep-workflow-id: <workflow id>`,
   * so a receiver's stand-in can tell which run asked (`run-header.ts`). Default off.
   */
  runHeader?: boolean;
}

/** Reports `activity.started` before the user's function runs, and `activity.returned` when it has its result. */
const activityPoints: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const where = {
        workflowId: ctx.info.workflowExecution?.workflowId ?? '',
        detail: ctx.info.activityType,
        execution: ctx.info.workflowExecution?.runId,
      };
      await crashPoint('activity.started', where);
      const result = await next(input);
      await crashPoint('activity.returned', where);
      return result;
    },
  },
});

/**
 * A module the workflow bundler can read. Temporal's bundler compiles TypeScript only outside
 * `node_modules`, so where this package is installed (in a user's `node_modules`) and runs from its
 * sources, the bundle gets the compiled copy that `npm run build` put in `dist/`.
 */
function bundleable(module: string): string {
  if (!module.endsWith('.ts') || !module.includes(`${path.sep}node_modules${path.sep}`)) return module;
  const root = path.resolve(__dirname, '..', '..');
  const compiled = path.join(root, 'dist', path.relative(root, module)).replace(/\.ts$/, '.js');
  if (!existsSync(compiled))
    throw new Error(
      `${module} is TypeScript inside node_modules, which the workflow bundler does not compile, and ${compiled} is missing`,
    );
  return compiled;
}

/**
 * The plugin's workflow interceptor modules, for a bundle built without the plugin (a replay test's).
 * Resolved when asked, not when the plugin is made, so that a worker compiled to one JavaScript file
 * with a pre-built workflow bundle never looks for these files.
 */
export function workflowInterceptorModules(options: Pick<CrashSweepPluginOptions, 'waits'> = {}): string[] {
  return [
    bundleable(require.resolve(options.waits === false ? './workflow-interceptors' : './workflow-wait-interceptors')),
  ];
}

/**
 * The crash sweep's worker plugin: records crash points in any worker, for any workflow and any
 * activities, with no change to their code. Outside a sweep nothing listens and every point is one
 * function call. Give it to `Worker.create({ plugins: [crashSweepPlugin()] })` (the sweep's own worker
 * processes do), or to `bundleWorkflowCode` for a pre-built bundle.
 *
 * Points: `activity.started`, `http.accepted`, `activity.returned` in activities;
 * `workflow.decided` and `workflow.waiting` in workflow tasks (through the `crashPoints` sink, which
 * the worker runs after an activation and before it reports the task).
 */
export function crashSweepPlugin(options: CrashSweepPluginOptions = {}): WorkerPlugin & BundlerPlugin {
  const { activities = true, http = true, runHeader = false } = options;
  return {
    name: 'crash-sweep',
    configureWorker(worker: WorkerOptions): WorkerOptions {
      if (http) watchHttp();
      if (runHeader) addRunHeader();
      const interceptors = worker.interceptors ?? {};
      return {
        ...worker,
        interceptors: {
          ...interceptors,
          activity: [...(interceptors.activity ?? []), ...(activities ? [activityPoints] : [])],
          // With a pre-built bundle the modules are in it already (see configureBundler).
          workflowModules: worker.workflowsPath
            ? [...(interceptors.workflowModules ?? []), ...workflowInterceptorModules(options)]
            : interceptors.workflowModules,
        },
        sinks: {
          ...worker.sinks,
          crashPoints: {
            reached: {
              // Awaited before the workflow task is reported, so a harness can park a decided task here.
              fn: (info, name: string, detail: string) =>
                crashPoint(name as PointName, {
                  workflowId: info.workflowId,
                  detail,
                  fromWorkflow: true,
                  execution: info.runId,
                }),
              callDuringReplay: false,
            },
          },
        },
      };
    },
    configureBundler(bundle: BundleOptions): BundleOptions {
      return {
        ...bundle,
        workflowInterceptorModules: [
          ...(bundle.workflowInterceptorModules ?? []),
          ...workflowInterceptorModules(options),
        ],
      };
    },
  };
}
