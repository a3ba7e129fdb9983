// The sample's mcpAgent: the mail tool from an MCP server through the plugin's TemporalMCPClient
// (examples/ai-sdk/workflows.ts, mcpAgent).
import { aiSdkSweep } from './sweep';

export default aiSdkSweep('mcp');
