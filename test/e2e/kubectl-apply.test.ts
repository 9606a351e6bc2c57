/**
 * Server-side apply and metadata.managedFields end to end with the real kubectl binaries, as
 * against Kubernetes 1.34: `apply --server-side` creating, changing and pruning; conflicts between
 * managers and `--force-conflicts`; `--subresource=status` (kubectl ≥ 1.32); the client-side ⇄ server-side
 * apply migration kubectl performs (test/cmd/apply.sh run_kubectl_server_side_apply_tests);
 * `kubectl edit` and `kubectl create` recording Update entries; server dry-run and
 * `diff --server-side`. One server for the file; each kubectl version in a namespace of its own.
 *
 * The expected outputs follow upstream: the conflict text is the apiserver's getConflictMessage
 * (managedfields/internal/conflict.go) followed by kubectl's advice (cmd/apply/apply.go); managers
 * whose fieldsets become empty are dropped (structured-merge-diff merge.Updater); managedFields are
 * sorted Apply before Update, then by time, then by manager (sortEncodedManagedFields); an apply that
 * changes nothing leaves the object and its entry's time as they were (managedFieldsUpdater).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { findKubectl, KUBECTL_VERSIONS, skipReason, type Kubectl, type KubectlResult } from '../helpers/kubectl.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

const e2e = useServer();

let dir = '';
/** The KUBE_EDITOR of the edit test: rewrites `  a: one` to `  a: edited` in the file kubectl hands it. */
let editor = '';
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pgkube-e2e-apply-'));
  editor = path.join(dir, 'editor.sh');
  await writeFile(editor, `#!/bin/sh\nsed -i 's/^  a: one$/  a: edited/' "$1"\n`);
  await chmod(editor, 0o755);
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The advice kubectl prints under a server-side apply conflict (kubectl's apply.go), line by line. */
const CONFLICT_ADVICE = [
  'Please review the fields above--they currently have other managers. Here',
  'are the ways you can resolve this warning:',
  '* If you intend to manage all of these fields, please re-run the apply',
  '  command with the `--force-conflicts` flag.',
  '* If you do not intend to manage all of the fields, please edit your',
  '  manifest to remove references to the fields that should keep their',
  '  current managers.',
  '* You may co-own fields by updating your manifest to match the existing',
  "  value; in this case, you'll become the manager if the other manager(s)",
  '  stop managing the field (remove it from their configuration).',
  'See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts',
].join('\n');

/** A ConfigMap manifest (values quoted, so `"1"` stays a string). */
function configMap(name: string, data: Record<string, string>, labels: Record<string, string> = {}): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`];
  if (Object.keys(labels).length > 0) lines.push('  labels:', ...Object.entries(labels).map(([k, v]) => `    ${k}: ${v}`));
  lines.push('data:', ...Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`));
  return `${lines.join('\n')}\n`;
}

/** A managedFields entry without its time (checked on its own), as kubectl prints it. */
interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsType: string;
  fieldsV1: unknown;
  subresource?: string;
}

/** Asserts kubectl failed (exit 1) and returns its stderr. */
function failed(result: KubectlResult): string {
  assert.equal(result.code, 1, `kubectl exited ${result.code}${result.timedOut ? ' (timed out)' : ''}, expected 1:\n${result.stderr}\n${result.stdout}`);
  return result.stderr;
}

/** The changed lines of a unified diff (without the ---/+++ headers). */
function changedLines(diff: string): string[] {
  return diff.split('\n').filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l));
}

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: server-side apply and managedFields`, { skip: skipReason(version) }, () => {
    const ns = namespaceFor('e2e-apply', version);
    const minor = Number(version.split('.')[1]);
    let k: Kubectl;
    let files = '';
    /** kubectl in this version's namespace. */
    const kn = (args: string[], options?: { input?: string }) => k.run(['-n', ns, ...args], options);
    /** Writes a manifest into this version's directory and returns its path. */
    const manifest = async (name: string, text: string) => {
      const file = path.join(files, name);
      await writeFile(file, text);
      return file;
    };
    /** The object as `get -o json --show-managed-fields` prints it. */
    const getJson = async (what: string): Promise<any> => JSON.parse(ok(await kn(['get', ...what.split(' '), '-o', 'json', '--show-managed-fields'])));
    /** The object's managedFields without the times, after checking each time is RFC 3339 in whole seconds (or absent). */
    const managed = async (what: string): Promise<Entry[]> => {
      const entries: any[] = (await getJson(what)).metadata.managedFields ?? [];
      return entries.map(({ time, ...rest }) => {
        if (time !== undefined) assert.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        return rest as Entry;
      });
    };
    const entry = (manager: string, operation: 'Apply' | 'Update', fieldsV1: unknown, subresource?: string): Entry => ({
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1,
      manager,
      operation,
      ...(subresource ? { subresource } : {}),
    });

    before(async () => {
      k = e2e().kubectl(version);
      files = path.join(dir, version);
      await mkdir(files);
      ok(await k.run(['create', 'namespace', ns]));
    });

    it('apply --server-side creates, changes a value and prunes a removed key', async () => {
      const file = await manifest('app.yaml', configMap('app', { color: 'blue', size: '10', shape: 'round' }));
      assert.equal(ok(await kn(['apply', '--server-side', '-f', file])), 'configmap/app serverside-applied\n');
      assert.deepEqual((await getJson('cm app')).data, { color: 'blue', size: '10', shape: 'round' });

      await writeFile(file, configMap('app', { color: 'green', size: '10', shape: 'round' }));
      assert.equal(ok(await kn(['apply', '--server-side', '-f', file])), 'configmap/app serverside-applied\n');
      assert.deepEqual((await getJson('cm app')).data, { color: 'green', size: '10', shape: 'round' });

      // The applier no longer sets shape and nobody else owns it: the server removes it.
      await writeFile(file, configMap('app', { color: 'green', size: '10' }));
      assert.equal(ok(await kn(['apply', '--server-side', '-f', file])), 'configmap/app serverside-applied\n');
      assert.deepEqual((await getJson('cm app')).data, { color: 'green', size: '10' });
    });

    it('get hides managedFields; --show-managed-fields shows the kubectl Apply entry with its f:data keys', async () => {
      const plain = load(ok(await kn(['get', 'cm', 'app', '-o', 'yaml']))) as any;
      assert.equal(plain.metadata.managedFields, undefined);
      assert.ok(!ok(await kn(['get', 'cm', 'app', '-o', 'yaml'])).includes('managedFields'));

      const shown = load(ok(await kn(['get', 'cm', 'app', '-o', 'yaml', '--show-managed-fields']))) as any;
      assert.equal(shown.metadata.managedFields.length, 1);
      const [only] = shown.metadata.managedFields;
      assert.match(only.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(only, { ...entry('kubectl', 'Apply', { 'f:data': { 'f:color': {}, 'f:size': {} } }), time: only.time });
    });

    it('re-applying the same manifest writes nothing: same resourceVersion, same entry time', async () => {
      const before = await getJson('cm app');
      const file = path.join(files, 'app.yaml');
      assert.equal(ok(await kn(['apply', '--server-side', '-f', file])), 'configmap/app serverside-applied\n');
      const after = await getJson('cm app');
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
      assert.deepEqual(after.metadata.managedFields, before.metadata.managedFields);
    });

    it('another manager changing a kubectl-owned value conflicts; --force-conflicts takes the field', async () => {
      const theirs = await manifest('app-other.yaml', configMap('app', { color: 'red' }));
      const res = await kn(['apply', '--server-side', '--field-manager=other', '-f', theirs]);
      const stderr = failed(res);
      assert.ok(stderr.includes('conflict with "kubectl"'), stderr);
      assert.ok(stderr.includes('.data.color'), stderr);
      assert.equal(stderr, `error: Apply failed with 1 conflict: conflict with "kubectl": .data.color\n${CONFLICT_ADVICE}\n`);
      assert.deepEqual((await getJson('cm app')).data, { color: 'green', size: '10' });

      // Two conflicting keys: listed under the manager, one path a line.
      const both = await manifest('app-both.yaml', configMap('app', { color: 'red', size: '11' }));
      assert.equal(
        failed(await kn(['apply', '--server-side', '--field-manager=other', '-f', both])),
        `error: Apply failed with 2 conflicts: conflicts with "kubectl":\n- .data.color\n- .data.size\n${CONFLICT_ADVICE}\n`,
      );

      // The same value as the owner's is no conflict: both managers own the field.
      const same = await manifest('app-same.yaml', configMap('app', { size: '10' }));
      assert.equal(ok(await kn(['apply', '--server-side', '--field-manager=sharer', '-f', same])), 'configmap/app serverside-applied\n');

      assert.equal(ok(await kn(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', theirs])), 'configmap/app serverside-applied\n');
      assert.deepEqual((await getJson('cm app')).data, { color: 'red', size: '10' });
      // Sorted Apply first, then by time: sharer's apply changed no value, so its entry has no time (first).
      const entries = await managed('cm app');
      assert.deepEqual(entries, [
        entry('sharer', 'Apply', { 'f:data': { 'f:size': {} } }),
        entry('kubectl', 'Apply', { 'f:data': { 'f:size': {} } }),
        entry('other', 'Apply', { 'f:data': { 'f:color': {} } }),
      ]);
      const times = (await getJson('cm app')).metadata.managedFields.map((e: { time?: string }) => e.time);
      assert.equal(times[0], undefined);
      assert.ok(times[1] && times[2]);

      // kubectl now conflicts with other on the field it lost.
      const mine = path.join(files, 'app.yaml');
      assert.equal(failed(await kn(['apply', '--server-side', '-f', mine])), `error: Apply failed with 1 conflict: conflict with "other": .data.color\n${CONFLICT_ADVICE}\n`);
    });

    it('a Pod: keyed lists in managedFields and a conflict on a container field by its key', async () => {
      const pod = await manifest(
        'pod.yaml',
        [
          'apiVersion: v1',
          'kind: Pod',
          'metadata:',
          '  name: web',
          '  labels:',
          '    app: web',
          'spec:',
          '  containers:',
          '  - name: main',
          '    image: nginx:1.27',
          '    ports:',
          '    - containerPort: 80',
          '      protocol: TCP',
          '',
        ].join('\n'),
      );
      assert.equal(ok(await kn(['apply', '--server-side', '-f', pod])), 'pod/web serverside-applied\n');
      const spec = {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': {
          'f:containers': {
            'k:{"name":"main"}': {
              '.': {},
              'f:image': {},
              'f:name': {},
              'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
            },
          },
        },
      };
      assert.deepEqual(await managed('pod web'), [entry('kubectl', 'Apply', spec)]);
      // Defaults the server filled in (imagePullPolicy…) are nobody's.
      assert.equal((await getJson('pod web')).spec.containers[0].imagePullPolicy, 'IfNotPresent');

      const bump = await manifest('pod-image.yaml', ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', '  containers:', '  - name: main', '    image: nginx:1.28', ''].join('\n'));
      assert.equal(
        failed(await kn(['apply', '--server-side', '--field-manager=updater', '-f', bump])),
        `error: Apply failed with 1 conflict: conflict with "kubectl": .spec.containers[name="main"].image\n${CONFLICT_ADVICE}\n`,
      );
      assert.equal((await getJson('pod web')).spec.containers[0].image, 'nginx:1.27');
    });

    it('apply --server-side --subresource=status changes the status only and records a status entry', { skip: minor < 32 ? `kubectl ${version} apply has no --subresource (added in 1.32)` : false }, async () => {
      const before = await getJson('pod web');
      const status = await manifest(
        'pod-status.yaml',
        [
          'apiVersion: v1',
          'kind: Pod',
          'metadata:',
          '  name: web',
          // Spec in a status apply is reset to the stored spec, and not owned (the status strategy's reset fields).
          'spec:',
          '  containers:',
          '  - name: main',
          '    image: busybox',
          'status:',
          '  phase: Running',
          '  message: all good',
          '  conditions:',
          '  - type: Ready',
          '    status: "True"',
          '',
        ].join('\n'),
      );
      assert.equal(ok(await kn(['apply', '--server-side', '--subresource=status', '-f', status])), 'pod/web serverside-applied\n');
      const after = await getJson('pod web');
      assert.deepEqual(after.spec, before.spec);
      assert.equal(after.status.phase, 'Running');
      assert.equal(after.status.message, 'all good');
      assert.deepEqual(after.status.conditions, [{ type: 'Ready', status: 'True' }]);
      const entries = await managed('pod web');
      assert.equal(entries.length, 2);
      assert.deepEqual(entries[1], entry('kubectl', 'Apply', { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:message': {}, 'f:phase': {} } }, 'status'));

      // Another status manager conflicts with the status entry, named with its subresource.
      const kubelet = await manifest('pod-kubelet.yaml', ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'status:', '  message: degraded', ''].join('\n'));
      assert.equal(
        failed(await kn(['apply', '--server-side', '--subresource=status', '--field-manager=kubelet', '-f', kubelet])),
        `error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "status": .status.message\n${CONFLICT_ADVICE}\n`,
      );
    });

    it('client-side apply, then server-side apply of a changed file migrates the ownership without conflict', async () => {
      const file = await manifest('mig.yaml', configMap('mig', { key: 'value', legacy: 'unused' }, { app: 'demo' }));
      assert.equal(ok(await kn(['apply', '-f', file])), 'configmap/mig created\n');
      const csa = await getJson('cm mig');
      assert.ok(csa.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'].includes('"legacy":"unused"'));
      assert.deepEqual(await managed('cm mig'), [
        entry('kubectl-client-side-apply', 'Update', {
          'f:data': { '.': {}, 'f:key': {}, 'f:legacy': {} },
          'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
        }),
      ]);

      // As test/cmd/apply.sh: a manager other than kubectl does not get the migration and conflicts.
      await writeFile(file, configMap('mig', { key: 'value' }, { app: 'demo2' }));
      assert.equal(
        failed(await kn(['apply', '--server-side', '--field-manager=not-kubectl', '-f', file])),
        `error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .metadata.labels.app\n${CONFLICT_ADVICE}\n`,
      );

      // kubectl itself: no conflict; the fields the last apply dropped (legacy) are pruned.
      assert.equal(ok(await kn(['apply', '--server-side', '-f', file])), 'configmap/mig serverside-applied\n');
      const ssa = await getJson('cm mig');
      assert.deepEqual(ssa.data, { key: 'value' });
      assert.deepEqual(ssa.metadata.labels, { app: 'demo2' });
      // The server keeps kubectl's last-applied annotation in step with what kubectl applied.
      assert.deepEqual(JSON.parse(ssa.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { labels: { app: 'demo2' }, name: 'mig', namespace: ns },
        data: { key: 'value' },
      });
      const viewed = JSON.parse(ok(await kn(['apply', 'view-last-applied', 'cm/mig', '-o', 'json'])));
      assert.deepEqual(viewed.metadata.labels, { app: 'demo2' });
      // kubectl-client-side-apply is gone; kubectl-last-applied (kubectl's own apply of the annotation) keeps it.
      assert.deepEqual(
        (await managed('cm mig')).map((e) => [e.manager, e.operation]),
        [
          ['kubectl-last-applied', 'Apply'],
          ['kubectl', 'Apply'],
        ],
      );
      assert.deepEqual(await managed('cm mig'), [
        entry('kubectl-last-applied', 'Apply', { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }),
        entry('kubectl', 'Apply', { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }),
      ]);

      // Then an ordinary server-side change.
      await writeFile(file, configMap('mig', { key: 'changed' }, { app: 'demo2' }));
      assert.equal(ok(await kn(['apply', '--server-side', '-f', file])), 'configmap/mig serverside-applied\n');
      assert.deepEqual((await getJson('cm mig')).data, { key: 'changed' });
    });

    it('server-side apply, then client-side apply (the downgrade kubectl supports through the annotation)', async () => {
      // The annotation the server kept up to date lets client-side apply delete what left the file.
      const file = await manifest('mig-down.yaml', configMap('mig', { other: 'x' }, { app: 'demo2' }));
      assert.equal(ok(await kn(['apply', '-f', file])), 'configmap/mig configured\n');
      const csa = await getJson('cm mig');
      assert.deepEqual(csa.data, { other: 'x' });
      assert.deepEqual(JSON.parse(csa.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data, { other: 'x' });
      // The removed key left kubectl's set; the new key and the annotation are the client-side applier's.
      assert.deepEqual(await managed('cm mig'), [
        entry('kubectl', 'Apply', { 'f:metadata': { 'f:labels': { 'f:app': {} } } }),
        entry('kubectl-client-side-apply', 'Update', { 'f:data': { 'f:other': {} }, 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }),
      ]);
      assert.equal(ok(await kn(['apply', '-f', file])), 'configmap/mig unchanged\n');
    });

    it('an apply carrying a stale metadata.resourceVersion is refused with 409 Conflict', async () => {
      const withVersion = (data: Record<string, string>, resourceVersion: string) =>
        configMap('versioned', data).replace('  name: versioned\n', `  name: versioned\n  resourceVersion: "${resourceVersion}"\n`);
      const file = await manifest('versioned.yaml', configMap('versioned', { v: '1' }));
      ok(await kn(['apply', '--server-side', '-f', file]));
      const first = (await getJson('cm versioned')).metadata.resourceVersion;
      // The current resourceVersion is a precondition that holds.
      await writeFile(file, withVersion({ v: '2' }, first));
      assert.equal(ok(await kn(['apply', '--server-side', '-f', file])), 'configmap/versioned serverside-applied\n');
      assert.deepEqual((await getJson('cm versioned')).data, { v: '2' });
      // Now `first` is stale: upstream answers 409, and kubectl adds its conflict advice to any 409 Conflict.
      await writeFile(file, withVersion({ v: '3' }, first));
      const res = await kn(['apply', '--server-side', '-f', file]);
      assert.equal(
        failed(res),
        `error: Operation cannot be fulfilled on configmaps "versioned": the object has been modified; please apply your changes to the latest version and try again\n${CONFLICT_ADVICE}\n`,
      );
      assert.deepEqual((await getJson('cm versioned')).data, { v: '2' });
    });

    it('re-applying values the server normalizes (Secret stringData) writes nothing', async () => {
      const file = await manifest('secret.yaml', ['apiVersion: v1', 'kind: Secret', 'metadata:', '  name: creds', 'stringData:', '  password: hunter2', ''].join('\n'));
      assert.equal(ok(await kn(['apply', '--server-side', '-f', file])), 'secret/creds serverside-applied\n');
      const before = await getJson('secret creds');
      assert.deepEqual(before.data, { password: Buffer.from('hunter2').toString('base64') });
      assert.equal(before.stringData, undefined);
      assert.deepEqual(await managed('secret creds'), [entry('kubectl', 'Apply', { 'f:stringData': { 'f:password': {} } })]);
      // Into the next second, so that a new entry time would differ from the stored one.
      await sleep(1100);
      assert.equal(ok(await kn(['apply', '--server-side', '-f', file])), 'secret/creds serverside-applied\n');
      const after = await getJson('secret creds');
      assert.deepEqual(after.data, before.data);
      // Only the entry's time would change: upstream reverts it and writes nothing.
      assert.deepEqual(after.metadata.managedFields, before.metadata.managedFields);
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
    });

    it('kubectl edit works on an object with managedFields and records a kubectl-edit Update', async () => {
      const file = await manifest('edited.yaml', configMap('edited', { a: 'one', b: 'two' }));
      ok(await kn(['apply', '--server-side', '-f', file]));
      const res = await runWithEnv(version, ['-n', ns, 'edit', 'cm', 'edited'], { KUBE_EDITOR: editor, EDITOR: editor });
      assert.equal(ok(res), 'configmap/edited edited\n');
      assert.deepEqual((await getJson('cm edited')).data, { a: 'edited', b: 'two' });
      // The update took data.a from the applier.
      assert.deepEqual(await managed('cm edited'), [entry('kubectl', 'Apply', { 'f:data': { 'f:b': {} } }), entry('kubectl-edit', 'Update', { 'f:data': { 'f:a': {} } })]);
      // Re-applying the old value now conflicts with the editor.
      assert.equal(failed(await kn(['apply', '--server-side', '-f', file])), `error: Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.a\n${CONFLICT_ADVICE}\n`);
    });

    it('create configmap records kubectl-create; create --raw the manager from the User-Agent', async () => {
      assert.equal(ok(await kn(['create', 'configmap', 'made', '--from-literal=k=v'])), 'configmap/made created\n');
      assert.equal((await getJson('cm made')).metadata.managedFields[0].manager, 'kubectl-create');
      assert.deepEqual(await managed('cm made'), [entry('kubectl-create', 'Update', { 'f:data': { '.': {}, 'f:k': {} } })]);

      // Without a fieldManager the server takes the User-Agent's prefix: kubectl.<version>/v1.x.y (…) → kubectl.<version>.
      const raw = await manifest('raw.json', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raw' }, data: { k: 'v' } }));
      ok(await k.run(['create', '--raw', `/api/v1/namespaces/${ns}/configmaps`, '-f', raw]));
      assert.deepEqual(await managed('cm raw'), [entry(`kubectl.${version}`, 'Update', { 'f:data': { '.': {}, 'f:k': {} } })]);

      // Applying a different value over a kubectl-create field conflicts with that Update manager.
      const over = await manifest('made.yaml', configMap('made', { k: 'w' }));
      assert.equal(failed(await kn(['apply', '--server-side', '-f', over])), `error: Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.k\n${CONFLICT_ADVICE}\n`);
    });

    it('apply --server-side --dry-run=server changes nothing', async () => {
      const before = await getJson('cm app');
      const file = await manifest('dry.yaml', configMap('app', { color: 'green', size: '10', extra: 'yes' }));
      const out = ok(await kn(['apply', '--server-side', '--force-conflicts', '--dry-run=server', '-f', file, '-o', 'json']));
      const answered = JSON.parse(out);
      assert.deepEqual(answered.data, { color: 'green', size: '10', extra: 'yes' });
      assert.equal(answered.metadata.resourceVersion, before.metadata.resourceVersion);
      const after = await getJson('cm app');
      assert.deepEqual(after, before);

      const fresh = await manifest('dry-new.yaml', configMap('phantom', { a: '1' }));
      assert.equal(ok(await kn(['apply', '--server-side', '--dry-run=server', '-f', fresh])), 'configmap/phantom serverside-applied (server dry run)\n');
      const missing = await kn(['get', 'cm', 'phantom']);
      assert.equal(failed(missing).trim(), 'Error from server (NotFound): configmaps "phantom" not found');
    });

    it('diff --server-side shows what an apply would change, and nothing when it would change nothing', async () => {
      const file = await manifest('diff.yaml', configMap('edited', { b: 'changed' }));
      const res = await kn(['diff', '--server-side', '-f', file]);
      // kubectl diff exits 1 when there are differences.
      assert.equal(res.code, 1, res.stderr);
      assert.equal(res.stderr, '');
      // Only the applied key: data.a is kubectl-edit's and stays; managedFields and resourceVersion do not move.
      assert.deepEqual(changedLines(res.stdout), ['-  b: two', '+  b: changed']);
      assert.deepEqual((await getJson('cm edited')).data, { a: 'edited', b: 'two' });

      const same = await manifest('diff-same.yaml', configMap('edited', { b: 'two' }));
      const none = await kn(['diff', '--server-side', '-f', same]);
      assert.equal(none.code, 0, none.stderr);
      assert.equal(none.stdout, '');
    });
  });
}

/** Runs kubectl with extra environment variables (the edit test's editor), with its own discovery cache. */
function runWithEnv(version: string, args: string[], env: Record<string, string>): Promise<KubectlResult> {
  const binary = findKubectl(version);
  assert.ok(binary, `kubectl.${version} is missing`);
  const kubeconfig = e2e().srv.kubeconfig;
  const cacheDir = path.join(dir, `cache-${version}`);
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cacheDir}`, ...args],
      { env: { ...process.env, KUBECONFIG: kubeconfig, KUBECTL_KUBERC: 'false', ...env }, timeout: 20_000, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number' && !err.killed) return reject(err);
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr, timedOut: Boolean(err?.killed) });
      },
    );
  });
}
