// The tests' S3-compatible server: moto's, from .tools/s3 (npm ci installs it), on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { freePort, waitForPort } from '../../common/free-port';
import { S3_SERVER_PYTHON, S3_SERVER_WHEELS } from '../../common/temporal-cli';

/** A running S3-compatible server: its endpoint, and how to stop it. */
export interface S3Server {
  endpoint: string;
  close(): Promise<void>;
}

/** Starts moto's S3 server as a child process and waits until it takes connections. */
export async function startS3Server(): Promise<S3Server> {
  if (!existsSync(path.join(S3_SERVER_PYTHON, 'moto', 'server.py')))
    throw new Error(
      `no S3 server in ${S3_SERVER_PYTHON}: run npm ci (or pip install --target .tools/s3 ${S3_SERVER_WHEELS.join(' ')})`,
    );
  const port = await freePort();
  const proc: ChildProcess = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, PYTHONPATH: S3_SERVER_PYTHON },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  await waitForPort(port, 30_000).catch((err: Error) => {
    proc.kill('SIGKILL');
    throw new Error(`the S3 server did not listen (${err.message}): ${stderr}`);
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      if (proc.exitCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}
