// The sink through which workflow code reports a crash point (workflow code may do no I/O).
import { proxySinks, type Sinks } from '@temporalio/workflow';

/**
 * The one way workflow code reports a crash point: a sink, because workflow code may do no I/O.
 * The worker runs sink calls after an activation and before it reports the workflow task, and skips
 * them during replay, so a point fires once per real decision. Outside a crash harness it does nothing.
 */
export interface CrashPointSinks extends Sinks {
  crashPoints: {
    reached(name: string, detail: string): void;
  };
}

export const { crashPoints } = proxySinks<CrashPointSinks>();
