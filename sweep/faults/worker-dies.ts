// The worker process dies: the fault of every row, at each of its points.
import type { Fault } from './fault';

/**
 * The worker process is SIGKILLed while it holds the run at a point (a run parked there): every row
 * has it, at each point its clean run reaches, and again at each point its restart reaches with
 * `--full`. The next worker process (loaded ahead) takes the run over. Rows name it only to say so.
 */
export const workerDies: Fault = {
  name: 'worker-dies',
  kind: 'worker-dies',
  target: 'worker',
  summary: 'the worker process is SIGKILLed at the point (every row has it)',
};
