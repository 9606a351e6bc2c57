/**
 * kubectl against the server: namespaces, discovery, version, health, leases and errors, once per
 * kubectl version.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { KUBECTL_VERSIONS, loggedRequests, parseTable, skipReason, type Kubectl } from '../helpers/kubectl.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

const e2e = useServer();

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: cluster`, { skip: skipReason(version) }, () => {
    const k = (): Kubectl => e2e().kubectl(version);

    it('get ns lists the bootstrap namespaces as Active', async () => {
      const rows = parseTable(ok(await k().run(['get', 'ns'])));
      const byName = new Map(rows.map((r) => [r.NAME, r]));
      for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
        assert.equal(byName.get(name)?.STATUS, 'Active', `namespace ${name} in:\n${JSON.stringify(rows)}`);
        assert.match(byName.get(name)!.AGE!, /^\d+[smhd]/);
      }
    });

    it('create namespace creates an Active namespace', async () => {
      const name = namespaceFor('e2e-created', version);
      assert.equal(ok(await k().run(['create', 'namespace', name])), `namespace/${name} created\n`);
      assert.equal(ok(await k().run(['get', 'ns', name, '-o', 'jsonpath={.metadata.name} {.status.phase}'])), `${name} Active`);
      const again = await k().run(['create', 'namespace', name]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, new RegExp(`Error from server \\(AlreadyExists\\): namespaces "${name}" already exists`));
    });

    it('delete namespace waits until the namespace and its configmaps and secrets are gone', async () => {
      const ns = namespaceFor('e2e-doomed', version);
      ok(await k().run(['create', 'namespace', ns]));
      for (const name of ['one', 'two']) {
        ok(await k().run(['-n', ns, 'create', 'configmap', name, '--from-literal=k=v']));
        ok(await k().run(['-n', ns, 'create', 'secret', 'generic', `s-${name}`, '--from-literal=k=v']));
      }
      assert.equal(ok(await k().run(['-n', ns, 'get', 'cm,secret', '-o', 'name'])), 'configmap/one\nconfigmap/two\nsecret/s-one\nsecret/s-two\n');

      const deleted = await k().run(['delete', 'namespace', ns, '-v=6'], { timeoutMs: 60_000 });
      assert.equal(ok(deleted), `namespace "${ns}" deleted\n`);
      // kubectl waited: after the DELETE it watched the namespace until the deletion event.
      const requests = loggedRequests(deleted.stderr);
      const del = requests.findIndex((r) => r.verb === 'DELETE' && r.url.pathname === `/api/v1/namespaces/${ns}`);
      assert.ok(del >= 0, deleted.stderr);
      assert.ok(
        requests.slice(del).some((r) => r.url.searchParams.get('watch') === 'true' && r.url.searchParams.get('fieldSelector') === `metadata.name=${ns}`),
        `no wait-watch after the DELETE:\n${deleted.stderr}`,
      );

      const gone = await k().run(['get', 'ns', ns]);
      assert.equal(gone.code, 1);
      assert.equal(gone.stderr.trim(), `Error from server (NotFound): namespaces "${ns}" not found`);
      const left = await k().run(['get', 'cm,secret', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}']);
      assert.ok(!ok(left).split('\n').some((l) => l.startsWith(`${ns}/`)), `objects left in ${ns}:\n${left.stdout}`);
      assert.equal(ok(await k().run(['-n', ns, 'get', 'cm,secret', '-o', 'name'])), '');
    });

    it('api-resources lists every served kind with its short names, group version and scope', async () => {
      const rows = parseTable(ok(await k().run(['api-resources'])));
      const byName = new Map(rows.map((r) => [r.NAME, r]));
      const expected = [
        ['configmaps', 'cm', 'v1', 'true', 'ConfigMap'],
        ['namespaces', 'ns', 'v1', 'false', 'Namespace'],
        ['secrets', '', 'v1', 'true', 'Secret'],
        ['serviceaccounts', 'sa', 'v1', 'true', 'ServiceAccount'],
        ['leases', '', 'coordination.k8s.io/v1', 'true', 'Lease'],
        ['events', 'ev', 'events.k8s.io/v1', 'true', 'Event'],
      ];
      for (const [name, shortNames, apiVersion, namespaced, kind] of expected) {
        assert.deepEqual(byName.get(name!), { NAME: name, SHORTNAMES: shortNames, APIVERSION: apiVersion, NAMESPACED: namespaced, KIND: kind });
      }
      const wide = ok(await k().run(['api-resources', '--api-group=coordination.k8s.io', '-o', 'wide']));
      assert.match(wide, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease\s+create,delete,deletecollection,get,list,patch,update,watch\s*$/m);
    });

    it('version shows the server as v1.34', async () => {
      const out = ok(await k().run(['version']));
      assert.match(out, /^Server Version: (v1\.34\.\d+|version\.Info\{Major:"1", Minor:"34", GitVersion:"v1\.34\.\d+)/m);
      const json = JSON.parse(ok(await k().run(['version', '-o', 'json'])));
      assert.equal(json.serverVersion.major, '1');
      assert.equal(json.serverVersion.minor, '34');
      assert.match(json.serverVersion.gitVersion, /^v1\.34\./);
    });

    it('get --raw /readyz?verbose lists the passing checks', async () => {
      const lines = ok(await k().run(['get', '--raw', '/readyz?verbose'])).trimEnd().split('\n');
      assert.equal(lines[0], '[+]ping ok');
      assert.equal(lines.at(-1), 'readyz check passed');
      for (const line of lines.slice(0, -1)) assert.match(line, /^\[\+\][\w/.-]+ ok$/);
      assert.ok(lines.includes('[+]postgres ok'), lines.join('\n'));
    });

    it('get lease -n kube-system shows the controller-manager lease with its holder', async () => {
      // Leader election runs at start; give it a moment on a slow machine.
      let rows: Record<string, string>[] = [];
      for (let i = 0; i < 20; i++) {
        rows = parseTable(ok(await k().run(['get', 'lease', '-n', 'kube-system'])));
        if (rows.some((r) => r.NAME === 'pgkube-controller-manager' && r.HOLDER)) break;
        await sleep(250);
      }
      const lease = rows.find((r) => r.NAME === 'pgkube-controller-manager');
      assert.ok(lease, JSON.stringify(rows));
      assert.notEqual(lease.HOLDER, '');
      const spec = JSON.parse(ok(await k().run(['get', 'lease', '-n', 'kube-system', 'pgkube-controller-manager', '-o', 'jsonpath={.spec}'])));
      assert.equal(spec.holderIdentity, lease.HOLDER);
      assert.equal(typeof spec.leaseDurationSeconds, 'number');
      assert.match(spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    });

    it('get of a missing configmap fails with NotFound and exit code 1', async () => {
      const res = await k().run(['get', 'cm', 'nope']);
      assert.equal(res.code, 1);
      assert.equal(res.stdout, '');
      assert.equal(res.stderr.trim(), 'Error from server (NotFound): configmaps "nope" not found');
    });
  });
}
