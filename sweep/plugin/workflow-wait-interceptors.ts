// Not a workflow, just interceptors: the plugin's, with `workflow.waiting`.
import { decisionPoints } from './workflow-interceptors';

/** The plugin's workflow interceptors: `workflow.decided` and `workflow.waiting`. */
export const interceptors = decisionPoints(true);
