/**
 * The crash-sweep plugin, what runs inside anyone's worker (`crash-safe-agent/plugin`): the plugin,
 * its workflow interceptor modules, and `crashPoint` for a point of your own in an activity.
 */
export { crashPoint, type PointContext } from '../../common/crash-points';
export { crashSweepPlugin, workflowInterceptorModules, type CrashSweepPluginOptions } from './plugin';
export { RUN_HEADER } from './run-header';
