import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import yaml from 'js-yaml';
import { FLAGS, parseDuration } from '../../src/config.ts';
import { ROOT } from '../helpers/npm-start.ts';
import { startTestServer } from '../helpers/server.ts';
import { nodeArgsFor } from '../helpers/entry.ts';

/** No container engine runs here: the image is checked as a documented build (stages, user, health, command). */
interface Instruction {
  readonly op: string;
  readonly args: string;
}

function dockerfile(): Instruction[][] {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stages: Instruction[][] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    if (m[1] === 'FROM') stages.push([]);
    stages.at(-1)?.push({ op: m[1], args: m[2].trim() });
  }
  return stages;
}

function dockerignore(): string[] {
  return readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}

test('the image builds in a stage of its own and runs the compiled server, not npm or tsx', () => {
  const stages = dockerfile();
  assert.equal(stages.length, 2, 'a build stage and the runtime stage');
  const [build, runtime] = stages;
  assert.ok(build.some((i) => i.op === 'RUN' && /npm run build/.test(i.args)));
  for (const copy of build.filter((i) => i.op === 'COPY')) {
    for (const source of copy.args.split(/\s+/).slice(0, -1)) assert.ok(existsSync(path.join(ROOT, source)), `COPY ${source}: in the repo`);
  }
  assert.ok(runtime.some((i) => i.op === 'RUN' && /npm ci --omit=dev/.test(i.args)), 'no dev dependencies at run time');
  assert.ok(runtime.some((i) => i.op === 'COPY' && /^--from=build \/app\/dist /.test(i.args)));
  assert.ok(!runtime.some((i) => i.op === 'COPY' && /\bsrc\b/.test(i.args)), 'no TypeScript sources in the image');
  const cmd = JSON.parse(runtime.find((i) => i.op === 'CMD')!.args) as string[];
  assert.equal(cmd[0], 'node');
  assert.equal(cmd.at(-1), 'dist/src/main.js');
  assert.ok(existsSync(path.join(ROOT, 'src/main.ts')));
  assert.doesNotMatch(cmd.join(' '), /tsx|npm/);
});

test('the image runs as an unprivileged user that owns the data dir', () => {
  const runtime = dockerfile()[1];
  const user = runtime.filter((i) => i.op === 'USER').at(-1)?.args;
  assert.ok(user && !['root', '0', '0:0'].includes(user), `USER ${user}`);
  const cmdIndex = runtime.findIndex((i) => i.op === 'CMD');
  assert.ok(runtime.findIndex((i) => i.op === 'USER') < cmdIndex);
  const env = runtime.filter((i) => i.op === 'ENV').map((i) => i.args).join(' ');
  const dataDir = /DATA_DIR=(\S+)/.exec(env)?.[1];
  assert.ok(dataDir, 'DATA_DIR is set');
  assert.ok(runtime.some((i) => i.op === 'RUN' && i.args.includes(`chown ${user}:${user} ${dataDir}`)), 'the data dir belongs to that user');
  assert.match(env, /BIND_ADDRESS=0\.0\.0\.0/, 'reachable from outside the container');
});

test('the image is healthy when /readyz answers 200: its HEALTHCHECK command against a running and a stopped server', async () => {
  const runtime = dockerfile()[1];
  const check = runtime.find((i) => i.op === 'HEALTHCHECK')!.args;
  const command = JSON.parse(check.slice(check.indexOf('CMD') + 3).trim()) as string[];
  assert.deepEqual(command, ['node', 'dist/src/healthcheck-cli.js']);
  const run = (port: number) =>
    new Promise<number | null>((resolve) => {
      // The sources of the same file (dist/ is what the image holds; tests run what is checked out).
      const child = spawn(process.execPath, nodeArgsFor('src/healthcheck-cli.ts'), { cwd: ROOT, env: { ...process.env, SECURE_PORT: String(port), BIND_ADDRESS: '0.0.0.0' }, stdio: 'ignore' });
      child.once('exit', resolve);
    });
  const srv = await startTestServer();
  try {
    assert.equal(await run(srv.server.port), 0);
  } finally {
    await srv.stop();
  }
  assert.equal(await run(srv.server.port), 1, 'nothing listening');
  const notReady = net.createServer((s) => s.end('HTTP/1.1 500 x\r\n\r\n'));
  await new Promise<void>((r) => notReady.listen(0, '127.0.0.1', r));
  assert.equal(await run((notReady.address() as net.AddressInfo).port), 1, 'not TLS, not 200');
  notReady.close();
});

test('.dockerignore keeps secrets, data and build output out of the build context, and nothing the build copies', () => {
  const ignored = dockerignore();
  for (const must of ['data', '.env', 'node_modules', 'dist', '.git', '*.key', '*.pem', '*.kubeconfig', 'postgres.password']) {
    assert.ok(ignored.includes(must), `.dockerignore lists ${must}`);
  }
  const copied = dockerfile().flatMap((stage) => stage.filter((i) => i.op === 'COPY' && !i.args.startsWith('--from')).flatMap((i) => i.args.split(/\s+/).slice(0, -1)));
  for (const source of copied) assert.ok(!ignored.includes(source), `${source} is copied, so it must not be ignored`);
});

test('the compose file sets only real settings and gives the server time to drain', () => {
  const compose = yaml.load(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as any;
  const apiserver = compose.services.apiserver;
  const envNames = new Set(FLAGS.map((f) => f.env));
  for (const name of Object.keys(apiserver.environment)) assert.ok(envNames.has(name), `${name} is a setting of the server`);
  const delay = parseDuration(String(apiserver.environment.SHUTDOWN_DELAY_DURATION ?? '0s'));
  assert.ok(parseDuration(apiserver.stop_grace_period) > delay + 5000, 'stop_grace_period leaves time after the shutdown delay');
  assert.equal(apiserver.depends_on.postgres.condition, 'service_healthy');
  assert.match(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), /docker compose cp apiserver:\/data\/admin\.kubeconfig/);
});
