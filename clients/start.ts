// `npm run start`: the triage example's start (examples/triage/start.ts), connected as this repository's
// other clients are: with `npm run dev`'s payload store when no other is named, so that `--wait` reads
// back a result the workers offloaded (256 KiB or more) instead of failing on its reference.
import { clientPayloadDir } from './dev-env';

const dir = clientPayloadDir();
if (dir) process.env.AGENT_PAYLOAD_DIR = dir;
void import('../examples/triage/start');
