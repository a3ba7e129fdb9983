// The sweep's dev server writes its own log to a file, named at the end only when it says anything.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeServerLog } from '../sweep/hosts/dev-server-host';

test("an empty log says nothing and is removed with its folder; one with lines is named, as the server's, not the sweep's", () => {
  const quiet = path.join(mkdtempSync(path.join(os.tmpdir(), 'crash-sweep-')), 'dev-server.log');
  writeFileSync(quiet, '\n');
  expect(describeServerLog(quiet)).toBeNull();
  expect(existsSync(path.dirname(quiet))).toBe(false);

  const noisy = path.join(mkdtempSync(path.join(os.tmpdir(), 'crash-sweep-')), 'dev-server.log');
  writeFileSync(noisy, 'ERROR Update workflow execution operation failed\nERROR context canceled\n');
  expect(describeServerLog(noisy)).toBe(
    `the Temporal dev server's own log (2 line(s), its errors, not the sweep's findings): ${noisy}`,
  );
  expect(existsSync(noisy)).toBe(true);
  rmSync(path.dirname(noisy), { recursive: true, force: true });
});
