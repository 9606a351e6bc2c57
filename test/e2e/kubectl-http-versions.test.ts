/**
 * kubectl over each protocol the server speaks on its port: HTTP/2 (kubectl's default, negotiated by
 * ALPN) and HTTP/1.1 (client-go with DISABLE_HTTP2 set). A create, get, watch and apply flow per
 * kubectl version and protocol; the server's side records which protocol every request came over.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KUBECTL_VERSIONS, kubectl, skipReason } from '../helpers/kubectl.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { namespaceFor, ok } from './setup.ts';

let srv: TestServer;
let cacheDir = '';
/** The HTTP version of every request the server received since the last reset. */
let versions: string[] = [];
const record = (req: IncomingMessage) => versions.push(req.httpVersion);

before(async () => {
  srv = await startTestServer();
  cacheDir = await mkdtemp(path.join(tmpdir(), 'pgkube-kubectl-cache-'));
  srv.server.httpServer.on('request', record);
});
after(async () => {
  srv?.server.httpServer.off('request', record);
  await srv?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

const PROTOCOLS = [
  { name: 'HTTP/2', http1: false, httpVersion: '2.0' },
  { name: 'HTTP/1.1', http1: true, httpVersion: '1.1' },
] as const;

for (const version of KUBECTL_VERSIONS) {
  for (const protocol of PROTOCOLS) {
    describe(`kubectl ${version} over ${protocol.name}`, { skip: skipReason(version) }, () => {
      it('creates, gets, watches and applies, every request over that protocol', async () => {
        const k = kubectl(version, srv.kubeconfig, cacheDir, { http1: protocol.http1 });
        const ns = namespaceFor(`e2e-proto-${protocol.http1 ? 'h1' : 'h2'}`, version);
        versions = [];

        ok(await k.run(['create', 'namespace', ns]));
        ok(await k.run(['-n', ns, 'create', 'cm', 'first', '--from-literal=a=1']));
        const got = JSON.parse(ok(await k.run(['-n', ns, 'get', 'cm', 'first', '-o', 'json'])));
        assert.deepEqual(got.data, { a: '1' });

        const watch = k.start(['-n', ns, 'get', 'cm', '-w', '--output-watch-events'], { timeoutMs: 30_000 });
        try {
          await watch.waitFor(/^ADDED\s+first\s/m);
          const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: ns }, data: { b: '2' } };
          ok(await k.run(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(manifest) }));
          await watch.waitFor(/^ADDED\s+applied\s/m);
          ok(await k.run(['apply', '--server-side', '-f', '-'], { input: JSON.stringify({ ...manifest, data: { b: '2', c: '3' } }) }));
          await watch.waitFor(/^MODIFIED\s+applied\s+2\s/m);
        } finally {
          await watch.stop();
        }

        assert.ok(versions.length >= 8, `the server saw the flow's requests (${versions.length})`);
        assert.deepEqual([...new Set(versions)], [protocol.httpVersion], `every request over ${protocol.name}`);
      });
    });
  }
}
