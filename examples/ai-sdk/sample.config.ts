// The sample's way: each tool's execute a plain activity proxy (examples/ai-sdk/workflows.ts, toolsAgent).
import { aiSdkSweep } from './sweep';

export default aiSdkSweep('sample');
