/**
 * kubectl against the server: creating, reading, changing and deleting ConfigMaps and Secrets, once
 * per kubectl version, each version in its own namespace.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { KUBECTL_VERSIONS, loggedRequests, parseTable, skipReason, type Kubectl } from '../helpers/kubectl.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

const e2e = useServer();

let manifests = '';
before(async () => {
  manifests = await mkdtemp(path.join(tmpdir(), 'pgkube-e2e-manifests-'));
});
after(async () => {
  if (manifests) await rm(manifests, { recursive: true, force: true });
});

function configMapManifest(name: string, data: Record<string, string>, labels: Record<string, string> = {}): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`];
  if (Object.keys(labels).length > 0) lines.push('  labels:', ...Object.entries(labels).map(([k, v]) => `    ${k}: ${v}`));
  lines.push('data:', ...Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`));
  return `${lines.join('\n')}\n`;
}

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: configmaps and secrets`, { skip: skipReason(version) }, () => {
    const ns = namespaceFor('e2e-objects', version);
    let k: Kubectl;
    /** kubectl in this version's namespace. */
    const kn = (args: string[], options?: { input?: string }) => k.run(['-n', ns, ...args], options);
    const jsonpath = async (what: string, expr: string) => ok(await kn(['get', ...what.split(' '), '-o', `jsonpath=${expr}`]));

    before(async () => {
      k = e2e().kubectl(version);
      ok(await k.run(['create', 'namespace', ns]));
    });

    it('create configmap --from-literal stores the literals as data', async () => {
      assert.equal(ok(await kn(['create', 'configmap', 'settings', '--from-literal=color=blue', '--from-literal=size=10'])), 'configmap/settings created\n');
      assert.equal(await jsonpath('cm settings', '{.data}'), '{"color":"blue","size":"10"}');
      const rows = parseTable(ok(await kn(['get', 'cm', 'settings'])));
      assert.deepEqual(
        rows.map((r) => [r.NAME, r.DATA]),
        [['settings', '2']],
      );
    });

    it('create secret generic stores the literals base64-encoded in data', async () => {
      assert.equal(ok(await kn(['create', 'secret', 'generic', 'creds', '--from-literal=password=hunter2', '--from-literal=user=admin'])), 'secret/creds created\n');
      assert.equal(await jsonpath('secret creds', '{.data.password}'), Buffer.from('hunter2').toString('base64'));
      assert.equal(await jsonpath('secret creds', '{.data.user}'), 'YWRtaW4=');
      assert.equal(await jsonpath('secret creds', '{.type}'), 'Opaque');
      const doc = load(ok(await kn(['get', 'secret', 'creds', '-o', 'yaml']))) as any;
      assert.equal(doc.stringData, undefined);
      const rows = parseTable(ok(await kn(['get', 'secret', 'creds'])));
      assert.deepEqual(rows, [{ NAME: 'creds', TYPE: 'Opaque', DATA: '2', AGE: rows[0]?.AGE }]);
    });

    it('get cm -o yaml shows the object with its system fields', async () => {
      const doc = load(ok(await kn(['get', 'cm', 'settings', '-o', 'yaml']))) as any;
      assert.equal(doc.apiVersion, 'v1');
      assert.equal(doc.kind, 'ConfigMap');
      assert.deepEqual(doc.data, { color: 'blue', size: '10' });
      assert.equal(doc.metadata.name, 'settings');
      assert.equal(doc.metadata.namespace, ns);
      assert.match(doc.metadata.resourceVersion, /^[1-9]\d*$/);
      assert.match(doc.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      // js-yaml reads the quoted timestamp as a string: RFC 3339 in UTC, whole seconds.
      assert.match(doc.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.ok(Math.abs(Date.parse(doc.metadata.creationTimestamp) - Date.now()) < 120_000);
    });

    it('label adds, overwrites and removes labels', async () => {
      assert.equal(ok(await kn(['label', 'cm', 'settings', 'app=web', 'tier=front'])), 'configmap/settings labeled\n');
      assert.equal(await jsonpath('cm settings', '{.metadata.labels}'), '{"app":"web","tier":"front"}');
      const clash = await kn(['label', 'cm', 'settings', 'app=db']);
      assert.equal(clash.code, 1);
      assert.match(clash.stderr, /'app' already has a value \(web\), and --overwrite is false/);
      assert.equal(ok(await kn(['label', 'cm', 'settings', 'app=db', '--overwrite'])), 'configmap/settings labeled\n');
      assert.equal(ok(await kn(['label', 'cm', 'settings', 'tier-'])), 'configmap/settings unlabeled\n');
      assert.equal(await jsonpath('cm settings', '{.metadata.labels}'), '{"app":"db"}');
    });

    it('annotate adds an annotation', async () => {
      // kubectl 1.27 prints "annotate", later versions "annotated".
      assert.match(ok(await kn(['annotate', 'cm', 'settings', 'owner=team-a', 'note=hello world'])), /^configmap\/settings annotated?\n$/);
      const annotations = JSON.parse(await jsonpath('cm settings', '{.metadata.annotations}'));
      assert.deepEqual(annotations, { owner: 'team-a', note: 'hello world' });
    });

    it('patch --type merge, json and strategic change the data', async () => {
      const patch = async (type: string, body: unknown) => ok(await kn(['patch', 'cm', 'settings', '--type', type, '-p', JSON.stringify(body)]));
      assert.equal(await patch('merge', { data: { color: 'red', size: null } }), 'configmap/settings patched\n');
      assert.equal(await jsonpath('cm settings', '{.data}'), '{"color":"red"}');
      assert.equal(
        await patch('json', [
          { op: 'add', path: '/data/shape', value: 'round' },
          { op: 'replace', path: '/data/color', value: 'green' },
        ]),
        'configmap/settings patched\n',
      );
      assert.equal(await jsonpath('cm settings', '{.data}'), '{"color":"green","shape":"round"}');
      assert.equal(await patch('strategic', { data: { weight: '3' }, metadata: { labels: { extra: 'yes' } } }), 'configmap/settings patched\n');
      assert.equal(await jsonpath('cm settings', '{.data}'), '{"color":"green","shape":"round","weight":"3"}');
      assert.equal(await jsonpath('cm settings', '{.metadata.labels.extra}'), 'yes');
      // The same content again: the server keeps the object (and its resourceVersion) as it is.
      const before = await jsonpath('cm settings', '{.metadata.resourceVersion}');
      assert.equal(await patch('merge', { data: { weight: '3' } }), 'configmap/settings patched (no change)\n');
      assert.equal(await jsonpath('cm settings', '{.metadata.resourceVersion}'), before);
      const bad = await kn(['patch', 'cm', 'settings', '--type', 'json', '-p', '[{"op":"test","path":"/data/color","value":"blue"}]']);
      // kube-apiserver answers a JSON patch that does not apply with a bare 422 Invalid (no causes).
      assert.equal(bad.code, 1);
      assert.equal(bad.stderr.trim(), 'The request is invalid: the server rejected our request due to an error in our request');
    });

    it('apply -f twice creates the configmap, then patches it three-way', async () => {
      const file = path.join(manifests, `applied-${version}.yaml`);
      await writeFile(file, configMapManifest('applied', { a: '1', b: '2' }, { managed: 'apply' }));
      const first = await kn(['apply', '-f', file, '-v=6']);
      assert.equal(ok(first), 'configmap/applied created\n');
      assert.ok(loggedRequests(first.stderr).some((r) => r.verb === 'POST' && r.url.pathname === `/api/v1/namespaces/${ns}/configmaps`), first.stderr);
      const lastApplied = JSON.parse(await jsonpath('cm applied', '{.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}'));
      assert.deepEqual(lastApplied.data, { a: '1', b: '2' });

      // Someone else adds a key; the next apply drops b (it left the manifest) and keeps theirs.
      ok(await kn(['patch', 'cm', 'applied', '--type', 'merge', '-p', '{"data":{"theirs":"x"}}']));
      await writeFile(file, configMapManifest('applied', { a: 'one' }, { managed: 'apply' }));
      const second = await kn(['apply', '-f', file, '-v=6']);
      assert.equal(ok(second), 'configmap/applied configured\n');
      assert.ok(loggedRequests(second.stderr).some((r) => r.verb === 'PATCH' && r.url.pathname === `/api/v1/namespaces/${ns}/configmaps/applied`), second.stderr);
      assert.equal(await jsonpath('cm applied', '{.data}'), '{"a":"one","theirs":"x"}');
      assert.equal(await jsonpath('cm applied', '{.metadata.labels}'), '{"managed":"apply"}');

      assert.equal(ok(await kn(['apply', '-f', file])), 'configmap/applied unchanged\n');
    });

    it('apply -f rejects an unknown field with BadRequest', async () => {
      const file = path.join(manifests, `unknown-${version}.yaml`);
      await writeFile(file, `${configMapManifest('strict', { a: '1' })}bogus: 1\n`);
      const res = await kn(['apply', '-f', file]);
      assert.equal(res.code, 1);
      assert.match(res.stderr, /Error from server \(BadRequest\): .*unknown field "bogus"/);
      assert.equal((await kn(['get', 'cm', 'strict'])).code, 1);
    });

    it('get -l and --field-selector select by label and name; -o name prints kind/name', async () => {
      for (const [name, tier] of [['sel-a', 'web'], ['sel-b', 'web'], ['sel-c', 'db']] as const) {
        ok(await kn(['create', '-f', '-'], { input: configMapManifest(name, { k: 'v' }, { tier, group: 'sel' }) }));
      }
      const names = async (...args: string[]) => ok(await kn(['get', 'cm', '-o', 'name', ...args]));
      assert.equal(await names('-l', 'tier=web'), 'configmap/sel-a\nconfigmap/sel-b\n');
      assert.equal(await names('-l', 'group=sel,tier!=web'), 'configmap/sel-c\n');
      assert.equal(await names('-l', 'tier in (db,cache)'), 'configmap/sel-c\n');
      assert.equal(await names('--field-selector', 'metadata.name=sel-b'), 'configmap/sel-b\n');
      assert.equal(await names('--field-selector', 'metadata.name!=sel-b', '-l', 'group=sel'), 'configmap/sel-a\nconfigmap/sel-c\n');
      const rows = parseTable(ok(await kn(['get', 'cm', '-l', 'tier=web'])));
      assert.deepEqual(
        rows.map((r) => r.NAME),
        ['sel-a', 'sel-b'],
      );
      const none = await kn(['get', 'cm', '-l', 'tier=nothing']);
      assert.equal(ok(none), '');
      assert.equal(none.stderr.trim(), `No resources found in ${ns} namespace.`);
      const badField = await kn(['get', 'cm', '--field-selector', 'data.k=v']);
      assert.equal(badField.code, 1);
      assert.match(badField.stderr, /field label not supported: data\.k/);
    });

    it('get cm -o name lists every configmap in name order', async () => {
      assert.equal(ok(await kn(['get', 'cm', '-o', 'name'])), ['applied', 'sel-a', 'sel-b', 'sel-c', 'settings'].map((n) => `configmap/${n}\n`).join(''));
    });

    it('delete cm -l deletes exactly the selected configmaps', async () => {
      assert.equal(ok(await kn(['delete', 'cm', '-l', 'group=sel,tier=web'])), 'configmap "sel-a" deleted\nconfigmap "sel-b" deleted\n');
      assert.equal(ok(await kn(['get', 'cm', '-l', 'group=sel', '-o', 'name'])), 'configmap/sel-c\n');
    });

    it('create cm --dry-run=server -o yaml shows the object and persists nothing', async () => {
      const doc = load(ok(await kn(['create', 'cm', 'phantom', '--from-literal=a=b', '--dry-run=server', '-o', 'yaml']))) as any;
      assert.equal(doc.kind, 'ConfigMap');
      assert.equal(doc.metadata.name, 'phantom');
      assert.equal(doc.metadata.namespace, ns);
      assert.deepEqual(doc.data, { a: 'b' });
      assert.match(doc.metadata.creationTimestamp, /Z$/);
      assert.equal(doc.metadata.resourceVersion, undefined);
      const res = await kn(['get', 'cm', 'phantom']);
      assert.equal(res.code, 1);
      assert.equal(res.stderr.trim(), 'Error from server (NotFound): configmaps "phantom" not found');
    });

    it('describe cm --show-events=false shows the name, namespace, labels and data', async () => {
      const out = ok(await kn(['describe', 'cm', 'settings', '--show-events=false']));
      assert.match(out, /^Name:\s+settings$/m);
      assert.match(out, new RegExp(`^Namespace:\\s+${ns}$`, 'm'));
      assert.match(out, /^Labels:\s+app=db\n\s+extra=yes$/m);
      assert.match(out, /^Data\n====\n/m);
      assert.match(out, /^color:\n----\ngreen$/m);
    });

    // Known server gap: describe also lists core/v1 events (/api/v1/namespaces/<ns>/events), which the
    // server does not serve (only events.k8s.io/v1), so a plain describe of any object ends in a 404.
    it('describe cm shows the core/v1 events about it', async () => {
      const before = ok(await kn(['describe', 'cm', 'settings']));
      assert.match(before, /^Name:\s+settings$/m);
      assert.match(before, /^Events:\s+<none>$/m);
      const uid = ok(await kn(['get', 'cm', 'settings', '-o', 'jsonpath={.metadata.uid}']));
      const event = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'settings.checked' },
        involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', namespace: ns, uid },
        reason: 'Checked',
        message: 'looked at by the e2e test',
        type: 'Normal',
        source: { component: 'e2e' },
        count: 1,
        firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      };
      ok(await kn(['create', '-f', '-'], { input: JSON.stringify(event) }));
      const after = ok(await kn(['describe', 'cm', 'settings']));
      assert.match(after, /Normal\s+Checked\s+\S+\s+e2e\s+looked at by the e2e test/);
      ok(await kn(['delete', 'event', 'settings.checked']));
    });

    it('delete removes a configmap and a secret', async () => {
      assert.equal(ok(await kn(['delete', 'cm', 'settings'])), 'configmap "settings" deleted\n');
      assert.equal(ok(await kn(['delete', 'secret', 'creds'])), 'secret "creds" deleted\n');
      for (const [kind, name] of [['configmaps', 'settings'], ['secrets', 'creds']]) {
        const res = await kn(['get', kind!, name!]);
        assert.equal(res.code, 1);
        assert.equal(res.stderr.trim(), `Error from server (NotFound): ${kind} "${name}" not found`);
      }
      const again = await kn(['delete', 'cm', 'settings']);
      assert.equal(again.code, 1);
      assert.equal(again.stderr.trim(), 'Error from server (NotFound): configmaps "settings" not found');
      assert.equal(ok(await kn(['delete', 'cm', 'settings', '--ignore-not-found'])), '');
    });
  });
}
