// No Docker engine runs where these tests run, so docker-compose.yml is checked by reading it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { AGENT_SEARCH_ATTRIBUTES } from '../common/search-attributes';
import { ROOT } from './helpers/processes';

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  depends_on?: string[] | Record<string, { condition: string }>;
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: unknown;
  entrypoint?: string[];
  restart?: string;
}

const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** The port a service's own command listens on (`--port N`), if it says. */
function listenPort(service: Service): number | undefined {
  const i = service.command?.indexOf('--port') ?? -1;
  return i >= 0 ? Number(service.command![i + 1]) : undefined;
}

describe('docker-compose.yml, checked statically', () => {
  test('runs Temporal on PostgreSQL, the Temporal UI, the tracker, the model server and a worker', () => {
    expect(Object.keys(services).sort()).toEqual([
      'model',
      'postgresql',
      'register-search-attributes',
      'temporal',
      'temporal-ui',
      'tracker',
      'worker',
    ]);
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
    // npm ci runs the package's scripts (its postinstall's bin file, its prepare's build): every file
    // they read is in the image before it.
    const copyAll = dockerfile.search(/^COPY \. \.$/m);
    expect(copyAll).toBeGreaterThan(-1);
    expect(copyAll).toBeLessThan(dockerfile.search(/^RUN npm ci/m));
  });

  test('every dependency names a service, and conditions on health only where a healthcheck exists', () => {
    for (const s of Object.values(services)) {
      const deps = Array.isArray(s.depends_on)
        ? Object.fromEntries(s.depends_on.map((d) => [d, { condition: 'service_started' }]))
        : (s.depends_on ?? {});
      for (const [dep, { condition }] of Object.entries(deps)) {
        expect(Object.keys(services)).toContain(dep);
        if (condition === 'service_healthy') expect(services[dep].healthcheck).toBeDefined();
        // Only a one-shot service (one with a restart policy that ends) can complete.
        if (condition === 'service_completed_successfully') expect(services[dep].restart).toBe('on-failure');
      }
    }
    expect(Object.keys(services.worker.depends_on as object).sort()).toEqual([
      'model',
      'register-search-attributes',
      'temporal',
      'tracker',
    ]);
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
    // Each answers only the Host names it allows (against DNS rebinding): the worker reaches it by its service name.
    for (const url of [tracker, model]) {
      const command = services[url.hostname].command!;
      expect(command[command.indexOf('--allow-host') + 1]?.split(',')).toContain(url.hostname);
    }
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

  test('the search attributes the agent keeps are registered, each once, as keyword lists, on the server the worker uses', () => {
    const register = services['register-search-attributes'];
    expect(register.image).toBe(services.temporal.image); // the server's image carries the temporal CLI
    const args = [...register.entrypoint!, ...register.command!];
    const flag = (name: string) => args.flatMap((a, i) => (a === name ? [args[i + 1]] : []));
    expect(args.slice(0, 4)).toEqual(['temporal', 'operator', 'search-attribute', 'create']);
    expect(flag('--address')).toEqual([services.worker.environment!.TEMPORAL_ADDRESS]);
    expect(flag('--namespace')).toEqual(['default']);
    expect(flag('--name')).toEqual(AGENT_SEARCH_ATTRIBUTES.map((k) => k.name));
    expect(flag('--type')).toEqual(AGENT_SEARCH_ATTRIBUTES.map(() => 'KeywordList'));
    expect(services.worker.depends_on).toMatchObject({
      'register-search-attributes': { condition: 'service_completed_successfully' },
    });
  });

  test('a service that listens beyond loopback requires a token, given from the environment (never in the file), and its callers send it', () => {
    for (const s of Object.values(services).filter((x) => x.build && x.command?.includes('tracker'))) {
      expect(s.command).toEqual(expect.arrayContaining(['--host', '0.0.0.0']));
      expect(s.environment?.TRACKER_TOKEN).toMatch(/^\$\{TRACKER_TOKEN:\?.+\}$/);
    }
    expect(services.worker.environment!.TRACKER_TOKEN).toMatch(/^\$\{TRACKER_TOKEN:\?.+\}$/);
  });

  test('named volumes are declared', () => {
    const used = Object.values(services).flatMap((s) =>
      ((s as { volumes?: string[] }).volumes ?? []).map((v) => v.split(':')[0]),
    );
    for (const v of used) expect(Object.keys(compose.volumes)).toContain(v);
  });
});
