import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { unauthorized } from '../../src/api/errors.ts';
import { X509Authenticator } from '../../src/auth/authn/x509-authenticator.ts';
import { writeAdminKubeconfig } from '../../src/auth/kubeconfig.ts';
import { ensurePki } from '../../src/auth/pki/ensure-pki.ts';
import type { Pki } from '../../src/auth/pki/ensure-pki.ts';
import { tempDir } from './helpers.ts';

const run = promisify(execFile);
const VERSION = { major: '1', minor: '34', gitVersion: 'v1.34.0', platform: 'linux/amd64' };

async function hasKubectl(): Promise<boolean> {
  try {
    await run('kubectl', ['version', '--client'], { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** Answers GET /version, but only to the admin, as a real server with authorization would. */
async function startVersionServer(pki: Pki): Promise<{ server: Server; url: string }> {
  const authn = new X509Authenticator();
  const server = createServer(
    { cert: pki.servingCert.pem, key: pki.servingKey.pem, ca: pki.caCert.pem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      let status = unauthorized().status;
      try {
        if (authn.authenticate(req)?.name === 'admin') status = { ...status, code: 200 };
      } catch {
        // stays 401
      }
      res.writeHead(status.code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status.code === 200 && req.url?.split('?')[0] === '/version' ? VERSION : status));
    },
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('admin kubeconfig', () => {
  let pki: Pki;
  let stranger: Pki;
  let dir: string;
  let cleanup: () => Promise<void>;
  let server: Server;
  let url: string;
  let kubeconfig: string;

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    pki = await ensurePki({ dir: join(dir, 'pki') });
    stranger = await ensurePki({ dir: join(dir, 'stranger') });
    ({ server, url } = await startVersionServer(pki));
    kubeconfig = join(dir, 'admin.kubeconfig');
    await writeAdminKubeconfig(kubeconfig, {
      server: url,
      caPem: pki.caCert.pem,
      certPem: pki.adminCert.pem,
      keyPem: pki.adminKey.pem,
      clusterName: 'pgkube',
      userName: 'admin',
      contextName: 'admin@pgkube',
    });
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    await cleanup();
  });

  test('is written with mode 0600 and embeds the PEMs as base64', async () => {
    assert.equal((await stat(kubeconfig)).mode & 0o777, 0o600);
    const config = yaml.load(await readFile(kubeconfig, 'utf8')) as any;
    assert.equal(config.kind, 'Config');
    assert.equal(config['current-context'], 'admin@pgkube');
    assert.deepEqual(config.contexts, [{ name: 'admin@pgkube', context: { cluster: 'pgkube', user: 'admin' } }]);
    assert.equal(config.clusters[0].cluster.server, url);
    const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
    assert.equal(decode(config.clusters[0].cluster['certificate-authority-data']), pki.caCert.pem);
    assert.equal(decode(config.users[0].user['client-certificate-data']), pki.adminCert.pem);
    assert.equal(decode(config.users[0].user['client-key-data']), pki.adminKey.pem);
  });

  test('replacing a looser file leaves it 0600', async () => {
    const path = join(dir, 'loose.kubeconfig');
    await writeFile(path, 'old', { mode: 0o644 });
    await writeAdminKubeconfig(path, { server: url, caPem: pki.caCert.pem, certPem: pki.adminCert.pem, keyPem: pki.adminKey.pem });
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  test('@kubernetes/client-node trusts the server and presents the admin certificate', async () => {
    // Pinned to 1.4.0: client-node 2.x pulls in undici 8, which needs Node >= 22 (zlib zstd).
    const { KubeConfig, VersionApi } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const version = await kc.makeApiClient(VersionApi).getCode();
    assert.equal(version.gitVersion, 'v1.34.0');
  });

  test('kubectl trusts the server and presents the admin certificate', async (t) => {
    if (!(await hasKubectl())) return t.skip('kubectl is not on PATH');
    const { stdout } = await run(
      'kubectl',
      ['--kubeconfig', kubeconfig, 'version', '--client=false', '--request-timeout=3s', '-o', 'json'],
      { timeout: 60_000, env: { ...process.env, HOME: dir } },
    );
    assert.equal(JSON.parse(stdout).serverVersion.gitVersion, 'v1.34.0');
  });

  test('kubectl with a certificate from another CA gets 401', async (t) => {
    if (!(await hasKubectl())) return t.skip('kubectl is not on PATH');
    const path = join(dir, 'stranger.kubeconfig');
    await writeAdminKubeconfig(path, { server: url, caPem: pki.caCert.pem, certPem: stranger.adminCert.pem, keyPem: stranger.adminKey.pem });
    const result = await run('kubectl', ['--kubeconfig', path, 'get', '--raw', '/version', '--request-timeout=3s'], {
      timeout: 60_000,
      env: { ...process.env, HOME: dir },
    }).then(
      () => assert.fail('kubectl should have failed'),
      (err: { stderr: string }) => err.stderr,
    );
    assert.match(result, /Unauthorized|must be logged in/);
  });
});
