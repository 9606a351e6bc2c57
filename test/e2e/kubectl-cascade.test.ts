/**
 * kubectl delete --cascade=background|foreground|orphan against the server, once per kubectl
 * version: the propagation policy kubectl sends is the one the garbage collector follows.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { client } from '../helpers/http.ts';
import { KUBECTL_VERSIONS, loggedRequests, skipReason, type Kubectl } from '../helpers/kubectl.ts';
import { gone, until } from '../controllers/gc-helpers.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

const e2e = useServer();

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: delete --cascade`, { skip: skipReason(version) }, () => {
    const ns = namespaceFor('e2e-cascade', version);
    let k: Kubectl;
    const kn = (args: string[], options?: { input?: string }) => k.run(['-n', ns, ...args], options);
    const api = () => client(e2e().srv.url, e2e().srv.adminAgent);
    const cm = (name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

    /** Creates an owner ConfigMap with kubectl and dependents of it (kubectl apply), returning the owner's uid. */
    async function family(owner: string, dependents: { name: string; block?: boolean; finalizers?: string[] }[]): Promise<string> {
      ok(await kn(['create', 'configmap', owner]));
      const uid = ok(await kn(['get', 'cm', owner, '-o', 'jsonpath={.metadata.uid}']));
      const items = dependents.map((d) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: d.name,
          ...(d.finalizers ? { finalizers: d.finalizers } : {}),
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid, ...(d.block ? { blockOwnerDeletion: true } : {}) }],
        },
      }));
      ok(await kn(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) }));
      return uid;
    }

    before(async () => {
      k = e2e().kubectl(version);
      ok(await k.run(['create', 'namespace', ns]));
    });

    it('--cascade=background sends Background: the owner goes at once, its dependents after it', async () => {
      await family('bg-owner', [{ name: 'bg-a' }, { name: 'bg-b' }]);
      const res = await kn(['delete', 'cm', 'bg-owner', '--cascade=background', '-v=8']);
      assert.match(ok(res), /^configmap "bg-owner" deleted/);
      assert.match(res.stderr, /"propagationPolicy":"Background"/);
      await gone(api(), cm('bg-a'));
      await gone(api(), cm('bg-b'));
    });

    it('--cascade=foreground sends Foreground: the owner stays marked until its blocking dependents are gone', async () => {
      await family('fg-owner', [{ name: 'fg-held', block: true, finalizers: ['example.com/hold'] }, { name: 'fg-free' }]);
      const res = await kn(['delete', 'cm', 'fg-owner', '--cascade=foreground', '--wait=false', '-v=8']);
      assert.match(ok(res), /^configmap "fg-owner" deleted/);
      assert.match(res.stderr, /"propagationPolicy":"Foreground"/);
      assert.ok(loggedRequests(res.stderr).some((r) => r.verb === 'DELETE' && r.url.pathname === cm('fg-owner')), res.stderr);
      await gone(api(), cm('fg-free'));
      await until(async () => ok(await kn(['get', 'cm', 'fg-held', '-o', 'jsonpath={.metadata.deletionTimestamp}'])) !== '', 'the held dependent to be deleted');
      assert.equal(ok(await kn(['get', 'cm', 'fg-owner', '-o', 'jsonpath={.metadata.finalizers}'])), '["foregroundDeletion"]');
      assert.notEqual(ok(await kn(['get', 'cm', 'fg-owner', '-o', 'jsonpath={.metadata.deletionTimestamp}'])), '');
      // Releasing the dependent lets the owner go; kubectl's own wait sees it.
      ok(await kn(['patch', 'cm', 'fg-held', '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']));
      ok(await kn(['wait', '--for=delete', 'cm/fg-owner', '--timeout=15s']));
      assert.equal((await api().get(cm('fg-held'))).status, 404);
    });

    it('--cascade=foreground with kubectl waiting: returns once the owner and its dependents are gone', async () => {
      await family('fgw-owner', [{ name: 'fgw-a', block: true }]);
      assert.match(ok(await kn(['delete', 'cm', 'fgw-owner', '--cascade=foreground'])), /^configmap "fgw-owner" deleted/);
      assert.equal((await api().get(cm('fgw-owner'))).status, 404);
      assert.equal((await api().get(cm('fgw-a'))).status, 404);
    });

    it('--cascade=orphan sends Orphan: the dependents stay, without their owner reference', async () => {
      await family('or-owner', [{ name: 'or-a', block: true }]);
      const res = await kn(['delete', 'cm', 'or-owner', '--cascade=orphan', '-v=8']);
      assert.match(ok(res), /^configmap "or-owner" deleted/);
      assert.match(res.stderr, /"propagationPolicy":"Orphan"/);
      await gone(api(), cm('or-owner'));
      assert.equal(ok(await kn(['get', 'cm', 'or-a', '-o', 'jsonpath={.metadata.ownerReferences}'])), '');
    });
  });
}
