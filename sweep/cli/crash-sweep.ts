// `npx crash-sweep`: the sweep's command line, as the package publishes it (the `crash-sweep` bin). It
// sweeps a config: `--config FILE`, or the folder's crash-sweep.config.ts (command.ts).
import { runMain } from '../../common/cli';
import { crashSweep, exitStatusOf } from './command';

runMain(() => crashSweep(process.argv.slice(2)), exitStatusOf);
