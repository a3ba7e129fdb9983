// The environment `npm run dev` gives its worker: its own Temporal and tracker, the model the user chose,
// and its payload store.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KEY_SECRET_ENV } from '../common/key';
import type { Client } from '@temporalio/client';
import { trackerTokensFromEnv } from '../tracker/config';
import { withClient } from './connect';

const ROOT = path.resolve(__dirname, '..');

/** The folder `npm run dev` keeps its state in: `DEV_DIR`, else `.dev/` at the repository's root. */
export function devDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.DEV_DIR ?? path.join(ROOT, '.dev'));
}

/**
 * The payload store a client reads: `AGENT_PAYLOAD_DIR`, else the one `npm run dev` keeps (`.dev/payloads`)
 * when it exists, so that `npm run status` in another shell reads what the dev worker stored.
 */
export function clientPayloadDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.AGENT_PAYLOAD_DIR) return env.AGENT_PAYLOAD_DIR;
  const dev = path.join(devDir(env), 'payloads');
  return existsSync(dev) ? dev : undefined;
}

/** Where `npm run dev` keeps the secret its worker derives keys under. */
export function devKeySecretFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(devDir(env), 'key-secret');
}

/**
 * The secret `npm run dev`'s worker derives keys under: made once (32 random bytes, readable by its
 * owner only) and kept in the dev folder, so a restart of `npm run dev` derives the same keys for the
 * runs it left waiting.
 */
export function devKeySecret(env: NodeJS.ProcessEnv = process.env): string {
  const file = devKeySecretFile(env);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}

/**
 * The secret a client derives keys under, to show a person a call's key (`npm run key`, `npm run
 * status`): `AGENT_KEY_SECRET`, else the one `npm run dev` keeps, when it exists; `undefined` for none.
 */
export function clientKeySecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env[KEY_SECRET_ENV]) return env[KEY_SECRET_ENV];
  const file = devKeySecretFile(env);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/**
 * The tokens `npm run dev`'s services require, as `npm run tracker` and `npm run codec` take them:
 * the tracker's `TRACKER_TOKEN` and `TRACKER_TOKENS` (more accounts, comma-separated), the codec
 * server's `CODEC_TOKEN`. None set: no token, as ever on one machine.
 */
export function devTokens(env: NodeJS.ProcessEnv = process.env): { tracker: string[]; codec?: string } {
  return { tracker: trackerTokensFromEnv(env), ...(env.CODEC_TOKEN ? { codec: env.CODEC_TOKEN } : {}) };
}

/** The ports `npm run dev` serves on. */
export interface DevPorts {
  temporal: number;
  tracker: number;
  model: number;
}

/**
 * The worker's environment under `npm run dev`: the dev server's Temporal and tracker, and the
 * scripted model unless the user named a model of their own (`OPENAI_BASE_URL`, with `AGENT_MODEL`
 * and `OPENAI_API_KEY`), which is kept: the scripted model is a default, never a replacement; and a
 * payload store in the dev folder (`AGENT_PAYLOAD_DIR`, unless set); the key secret given, else the
 * dev folder's (`keySecret`).
 */
export function devWorkerEnv(
  given: NodeJS.ProcessEnv,
  ports: DevPorts,
  dir = devDir(given),
  keySecret?: string,
): NodeJS.ProcessEnv {
  return {
    ...given,
    ...(!given[KEY_SECRET_ENV] && keySecret ? { [KEY_SECRET_ENV]: keySecret } : {}),
    // Large tool outputs and the conversation's turns, out of history: the local store under the dev folder.
    AGENT_PAYLOAD_DIR: given.AGENT_PAYLOAD_DIR || path.join(dir, 'payloads'),
    TEMPORAL_ADDRESS: `localhost:${ports.temporal}`,
    TRACKER_URL: `http://127.0.0.1:${ports.tracker}`,
    OPENAI_BASE_URL: given.OPENAI_BASE_URL || `http://127.0.0.1:${ports.model}/v1`,
  };
}

/** This repository's client commands connect with `npm run dev`'s payload store when no other is named. */
export function withDevClient<T>(fn: (c: { client: Client; taskQueue: string }) => Promise<T>): Promise<T> {
  return withClient(fn, { payloadDir: clientPayloadDir() });
}
