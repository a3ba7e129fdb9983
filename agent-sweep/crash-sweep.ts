// `npm run sweep`: the sweep's command line with this repository's own table as what it sweeps when no
// config is named: the agent loop and the five designs, under every fault of their rows.
import { runMain } from '../common/cli';
import { crashSweep, exitStatusOf, type SweepTable } from '../sweep/cli/command';
import { agentSuite } from './agent-suite';
import { AGENT_ROWS, type AgentRow } from './rows';

/** This repository's table: the agent's rows and the suite that sweeps them. */
const AGENT_TABLE: SweepTable = {
  rows: AGENT_ROWS,
  suite: (rows) => agentSuite(rows as AgentRow[]),
  describe: "this repository's own table, the agent loop and the five designs (docs/rows.md)",
  formatStats(stats) {
    const store = stats.storedRuns
      ? `, ${stats.storedRuns} runs with payloads in the store, ${stats.storeOrphans} objects there no history names`
      : '';
    return `, ${stats.mcpKills} MCP server kills cutting off ${stats.mcpWrites} writes, ${stats.trackerKills} tracker kills cutting off ${stats.trackerWrites}${store}`;
  },
};

runMain(() => crashSweep(process.argv.slice(2), AGENT_TABLE), exitStatusOf);
