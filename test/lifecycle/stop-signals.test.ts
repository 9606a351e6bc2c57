import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isAlive, killEverythingLaunched, launch, processTree, processesMentioning, ROOT, trackTree, waitUntilGone, type LaunchedServer } from '../helpers/npm-start.ts';
import { freePort } from '../helpers/free-port.ts';

/**
 * The server started exactly as the README says (`npm start`, settings from the environment, the
 * embedded PostgreSQL), stopped every way a user, a supervisor or a container runtime stops it. After
 * each stop no process of the server's tree may be left, and the next start must work.
 */
describe('stopping the server started with npm start', { timeout: 180_000 }, () => {
  let dataDir: string;
  let postgresPort: number;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-signals-'));
    postgresPort = await freePort();
  });
  after(async () => {
    killEverythingLaunched();
    for (const p of processesMentioning(dataDir)) process.kill(Number(p.split(':')[0]), 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Starts, sends `stop` and checks that the whole tree went away after a graceful stop. */
  async function startAndStop(stop: (srv: LaunchedServer, serverPid: number) => void, options: { detached?: boolean; command?: string[] } = {}) {
    const srv = await launch({ dataDir, postgresPort, ...options });
    const tree = processTree(srv.child.pid!);
    // In a PID namespace the log names pid 1; from here the server is the launched command's child.
    const serverPid = srv.serverPid === 1 ? tree[1] : srv.serverPid;
    assert.ok(tree.includes(serverPid) && tree.length >= 3, `the tree holds the server and PostgreSQL: ${tree}`);
    // Compiled JavaScript, no TypeScript loader, no shell or tsx process between npm and the server.
    const cmdline = readFileSync(`/proc/${serverPid}/cmdline`, 'utf8').split('\0').join(' ');
    assert.doesNotMatch(cmdline, /tsx/);
    if (!options.command) assert.equal(processTree(srv.child.pid!)[1], serverPid, 'the server is npm\'s own child');
    stop(srv, serverPid);
    const left = await waitUntilGone(tree);
    assert.deepEqual(left, [], `processes left behind: ${left.join(', ')}\n${srv.output()}`);
    assert.deepEqual(processesMentioning(dataDir), []);
    await srv.exited;
    const messages = srv.log.map((l) => l.msg);
    assert.equal(messages.filter((m) => m === 'shutting down').length, 1, 'one graceful stop, however often the signal arrived');
    assert.ok(messages.includes('stopped'), `the server stopped gracefully:\n${srv.output()}`);
    return srv;
  }

  test('SIGTERM to the npm process (a supervisor whose command is npm start)', async () => {
    await startAndStop((srv) => srv.child.kill('SIGTERM'));
  });

  test('SIGINT to the npm process', async () => {
    await startAndStop((srv) => srv.child.kill('SIGINT'));
  });

  test('SIGTERM to the process group', async () => {
    await startAndStop((srv) => process.kill(-srv.child.pid!, 'SIGTERM'), { detached: true });
  });

  test('SIGINT to the process group (what kill -INT -- -<pgid> and a terminal send)', async () => {
    await startAndStop((srv) => process.kill(-srv.child.pid!, 'SIGINT'), { detached: true });
  });

  test('Ctrl-C typed in a terminal', async () => {
    // `script` runs npm start on a pseudo-terminal; the ^C written to it becomes SIGINT for the
    // terminal's foreground process group, exactly as in an interactive shell.
    const child = spawn('script', ['-qfec', 'npm start', '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, SECURE_PORT: '0', EMBEDDED_POSTGRES_PORT: String(postgresPort), DATABASE_URL: '' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for (let i = 0; i < 600 && !out.includes('"msg":"serving"'); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, /"msg":"serving"/);
    const tree = trackTree(child);
    child.stdin.write('\x03');
    const left = await waitUntilGone(tree);
    assert.deepEqual(left, [], `processes left behind: ${left}\n${out}`);
    await exited;
    assert.match(out, /"signal":"SIGINT","msg":"shutting down"/);
    assert.match(out, /"msg":"stopped"/);
    assert.deepEqual(processesMentioning(dataDir), []);
  });

  test('SIGTERM to the server as a container runtime sends it (docker stop, PID 1 in its own PID namespace)', async () => {
    // The image runs `node dist/src/main.js` as PID 1; when PID 1 exits, the kernel kills everything
    // left in the namespace, so the embedded PostgreSQL must have been stopped cleanly before.
    await startAndStop((_srv, serverPid) => process.kill(serverPid, 'SIGTERM'), {
      command: ['unshare', '--pid', '--fork', '--mount-proc', process.execPath, 'dist/src/main.js'],
    });
  });

  test('after SIGKILL of the server, the next start stops the orphaned PostgreSQL and serves', async () => {
    const first = await launch({ dataDir, postgresPort });
    process.kill(first.serverPid, 'SIGKILL');
    await waitUntilGone([first.serverPid]);
    await first.exited;
    assert.ok(isAlive(first.postmasterPid), 'PostgreSQL outlives a SIGKILLed server');

    const second = await startAndStop((srv) => {
      assert.ok(!isAlive(first.postmasterPid), 'the orphan was stopped');
      srv.child.kill('SIGTERM');
    });
    const warned = second.log.find((l) => l.msg === 'stopping an embedded PostgreSQL left running by a server that did not stop it');
    assert.equal(warned?.postmasterPid, first.postmasterPid);
  });
});
