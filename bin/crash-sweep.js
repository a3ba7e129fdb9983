#!/usr/bin/env node
// `npx crash-sweep --config crash-sweep.config.ts`: the sweep's command line (sweep/cli/crash-sweep.ts) in a
// process that loads TypeScript through this package's tsx (a user's config is TypeScript), so that it runs
// from any project: the compiled command of the installed package, or the sources in this repository.
'use strict';
const { spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const root = path.join(__dirname, '..');
const source = path.join(root, 'sweep', 'cli', 'crash-sweep.ts');
const entry = existsSync(source) ? source : path.join(root, 'dist', 'sweep', 'cli', 'crash-sweep.js');
const tsx = pathToFileURL(require.resolve('tsx')).href;
const child = spawn(process.execPath, ['--import', tsx, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
