#!/usr/bin/env node
// npm's postinstall step (common/install-temporal.ts): compiled in the installed package; in this
// repository, where it runs before `prepare` compiles anything, from the sources through tsx.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const source = path.join(root, 'common', 'install-temporal.ts');
const args = existsSync(source)
  ? ['--import', require('node:url').pathToFileURL(require.resolve('tsx')).href, source]
  : [path.join(root, 'dist', 'common', 'install-temporal.js')];
const { status, error } = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
if (error || status !== 0)
  console.warn(`the Temporal install step did not finish (${error ? error.message : `status ${status}`}): see above`);
