#!/usr/bin/env node
// `npx crash-sweep --config crash-sweep.config.ts`: the sweep's command line (sweep/cli/crash-sweep.ts) in a
// process that loads TypeScript through this package's tsx, so that it runs from any project.
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const tsx = pathToFileURL(require.resolve('tsx')).href;
const child = spawn(
  process.execPath,
  ['--import', tsx, path.join(__dirname, '..', 'sweep', 'cli', 'crash-sweep.ts'), ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
