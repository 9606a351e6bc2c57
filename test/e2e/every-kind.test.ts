/**
 * One object of every kind, through real kubectl of both versions: `create -f` and `apply -f` with
 * validation on, `get` of each resource with its columns, `api-resources` listing every kind with
 * its short names, verbs and categories, and `explain` of a field.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dump } from 'js-yaml';
import { builtinKinds } from '../../src/kinds/index.ts';
import { apiVersionOf } from '../../src/registry/kind.ts';
import { columnDefinitions } from '../../src/registry/table.ts';
import { KUBECTL_VERSIONS, parseTable, skipReason, type Kubectl } from '../helpers/kubectl.ts';
import { everyKindManifest } from './every-kind-manifest.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

// Off-by-default versions are switched on, so that every kind is served.
const e2e = useServer(['--runtime-config=coordination.k8s.io/v1beta1=true,storagemigration.k8s.io/v1alpha1=true']);

let dir = '';
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pgkube-every-kind-'));
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The kinds one can create and read back (ComponentStatus is computed; reviews answer a POST and keep nothing). */
const stored = builtinKinds.filter((k) => k.verbs.includes('get'));
const writable = stored.filter((k) => k.verbs.includes('create'));
const resourceOf = (k: (typeof builtinKinds)[number]) => (k.group ? `${k.plural}.${k.group}` : k.plural);

it('the manifest has an object of every kind one can create', () => {
  const covered = new Set(everyKindManifest('x', 1, 'x').map((o) => `${o.object.apiVersion as string}/${o.object.kind as string}`));
  const missing = writable.map((k) => `${apiVersionOf(k)}/${k.kind}`).filter((k) => !covered.has(k));
  assert.deepEqual(missing, []);
});

KUBECTL_VERSIONS.forEach((version, index) => {
  describe(`kubectl ${version}: every kind`, { skip: skipReason(version) }, () => {
    const ns = namespaceFor('every-kind', version);
    const suffix = version.replace('.', '');
    const objects = everyKindManifest(suffix, index + 1, ns);
    let k: Kubectl;
    let file = '';

    before(async () => {
      k = e2e().kubectl(version);
      ok(await k.run(['create', 'namespace', ns]));
      file = path.join(dir, `every-kind-${suffix}.yaml`);
      await writeFile(file, objects.map((o) => dump(o.object)).join('---\n'));
    });

    it('create -f creates every object, with validation on', async () => {
      const out = ok(await k.run(['create', '-n', ns, '--validate=true', '-f', file], { timeoutMs: 60_000 }));
      assert.equal(out.trim().split('\n').filter((l) => / created$/.test(l)).length, objects.length, out);
    });

    it('apply -f accepts the same manifest', async () => {
      const out = ok(await k.run(['apply', '-n', ns, '--validate=true', '-f', file], { timeoutMs: 60_000 }));
      assert.equal(out.trim().split('\n').length, objects.length, out);
    });

    it('get prints each kind’s columns', async () => {
      for (const kind of stored) {
        const args = ['get', resourceOf(kind), ...(kind.namespaced ? ['-n', ns] : [])];
        const out = ok(await k.run(args));
        const header = out.split('\n')[0]!.trim().split(/\s{2,}/);
        const expected = columnDefinitions(kind).filter((c) => c.priority === 0).map((c) => c.name.toUpperCase());
        assert.deepEqual(header, expected, `kubectl get ${resourceOf(kind)}`);
      }
    });

    it('api-resources lists every kind with its short names, verbs and categories', async () => {
      const rows = parseTable(ok(await k.run(['api-resources', '-o', 'wide'])));
      for (const kind of builtinKinds) {
        const row = rows.find((r) => r.NAME === kind.plural && r.APIVERSION === apiVersionOf(kind));
        assert.ok(row, `${kind.plural} ${apiVersionOf(kind)} is not listed`);
        assert.equal(row.SHORTNAMES, kind.shortNames.join(','), `${kind.plural} short names`);
        assert.equal(row.NAMESPACED, String(kind.namespaced), `${kind.plural} scope`);
        assert.equal(row.KIND, kind.kind);
        assert.deepEqual(row.VERBS!.replace(/^\[|\]$/g, '').split(/[ ,]/).sort(), [...kind.verbs].sort(), `${kind.plural} verbs`);
        assert.equal(row.CATEGORIES, kind.categories.join(','), `${kind.plural} categories`);
      }
    });

    it('explain describes fields', async () => {
      const out = ok(await k.run(['explain', 'leases.spec.leaseDurationSeconds']));
      assert.match(out, /How long candidates wait after the last renewal/);
      const csi = ok(await k.run(['explain', 'csidrivers.spec']));
      assert.match(csi, /attachRequired\s+<boolean>\s+Whether volumes need an attach step/);
    });

    it('a mistake is refused with the field and Kubernetes’ message', async () => {
      const bad = { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: `bad-${suffix}` }, spec: { fsGroupPolicy: 'Sometimes' } };
      const res = await k.run(['create', '-f', '-'], { input: JSON.stringify(bad) });
      assert.notEqual(res.code, 0);
      assert.match(res.stderr, /spec\.fsGroupPolicy: Unsupported value: "Sometimes": supported values: "File", "None", "ReadWriteOnceWithFSType"/);
    });
  });
});
