// Crash-safe tools: each call keyed by the model's tool-call id (examples/ai-sdk/workflows.ts, crashSafeToolsAgent).
import { aiSdkSweep } from './sweep';

export default aiSdkSweep('crash-safe');
