import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './helpers/processes';

// No Docker engine runs where these tests run, so docker-compose.yml is checked by reading it.
interface Service {
  image?: string;
  build?: string;
  command?: string[];
  depends_on?: string[] | Record<string, { condition: string }>;
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: unknown;
}

const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** The port a service's own command listens on (`--port N`), if it says. */
function listenPort(service: Service): number | undefined {
  const i = service.command?.indexOf('--port') ?? -1;
  return i >= 0 ? Number(service.command![i + 1]) : undefined;
}

describe('docker-compose.yml, checked statically', () => {
  test('runs Temporal on PostgreSQL, the Temporal UI, the tracker, the model server and a worker', () => {
    expect(Object.keys(services).sort()).toEqual(['model', 'postgresql', 'temporal', 'temporal-ui', 'tracker', 'worker']);
    expect(services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
  });

  test('every image is pinned to a version, and every built service uses the Dockerfile that exists', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.image) expect([name, s.image]).toEqual([name, expect.stringMatching(/^[a-z0-9./-]+:\d+(\.\d+)+$/)]);
      else expect([name, s.build]).toEqual([name, '.']);
    }
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toMatch(/npm ci/);
  });

  test('every dependency names a service, and conditions on health only where a healthcheck exists', () => {
    for (const s of Object.values(services)) {
      const deps = Array.isArray(s.depends_on) ? Object.fromEntries(s.depends_on.map((d) => [d, { condition: 'service_started' }])) : s.depends_on ?? {};
      for (const [dep, { condition }] of Object.entries(deps)) {
        expect(Object.keys(services)).toContain(dep);
        if (condition === 'service_healthy') expect(services[dep].healthcheck).toBeDefined();
      }
    }
    expect(Object.keys(services.worker.depends_on as object).sort()).toEqual(['model', 'temporal', 'tracker']);
  });

  test("the worker's addresses point at services and ports that exist", () => {
    const env = services.worker.environment!;
    const [temporalHost, temporalPort] = env.TEMPORAL_ADDRESS.split(':');
    expect(services[temporalHost].ports).toContain(`${temporalPort}:${temporalPort}`);
    const tracker = new URL(env.TRACKER_URL);
    expect(listenPort(services[tracker.hostname])).toBe(Number(tracker.port));
    const model = new URL(env.OPENAI_BASE_URL);
    expect(listenPort(services[model.hostname])).toBe(Number(model.port));
    expect(model.pathname).toBe('/v1');
    expect(services['temporal-ui'].environment!.TEMPORAL_ADDRESS).toBe(env.TEMPORAL_ADDRESS);
  });

  test('published ports do not clash, services listen on all interfaces, and every npm script they run exists', () => {
    const published = Object.values(services).flatMap((s) => (s.ports ?? []).map((p) => p.split(':')[0]));
    expect(new Set(published).size).toBe(published.length);
    for (const s of Object.values(services).filter((x) => x.build)) {
      expect(s.command![0]).toBe('npm');
      expect(Object.keys(pkg.scripts)).toContain(s.command![2]);
      if (listenPort(s) !== undefined) expect(s.command).toEqual(expect.arrayContaining(['--host', '0.0.0.0']));
    }
  });

  test('named volumes are declared', () => {
    const used = Object.values(services).flatMap((s) => ((s as { volumes?: string[] }).volumes ?? []).map((v) => v.split(':')[0]));
    for (const v of used) expect(Object.keys(compose.volumes)).toContain(v);
  });
});
