/**
 * CustomResourceDefinitions end to end with the real kubectl binaries, as against Kubernetes 1.34:
 * a cert-manager-like Certificate CRD applied and waited for (`condition=established`), its objects
 * created, read by every name kubectl accepts, printed with the CRD's printer columns, watched, patched
 * (merge and JSON; strategic merge refused), applied client- and server-side, defaulted, refused by a
 * CEL rule and an enum, listed through their category and deleted; a two-version CRD whose objects
 * are converted by a real HTTPS webhook; and the CRD's deletion removing its objects and its kind.
 *
 * Expected outputs follow upstream: the 415 for a strategic merge patch lists the patch types the
 * custom resource handler accepts (apiextensions-apiserver customresource_handler.go, apiserver
 * handlers/patch.go and negotiation/errors.go); invalid objects print as kubectl's checkErr formats a
 * 422 with causes (kubectl cmd/util/helpers.go) from the CEL and schema errors of
 * apiextensions-apiserver (apiserver/validation); names print as `kind.group/name`
 * (test/cmd/crd.sh); a resource unknown to discovery is "the server doesn't have a resource type".
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dump } from 'js-yaml';
import { KUBECTL_VERSIONS, kubectl, parseTable, skipReason, type Kubectl, type KubectlResult } from '../helpers/kubectl.ts';
import type { FakeConversionWebhook } from '../crd/conversion-fixtures.ts';
import { certificate, certificateCrd, gadgetCrd, NEEDS_A_NAME, poolCrd, readyStatus, startGadgetConverter } from './crd-fixtures.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

const e2e = useServer();

let converter: FakeConversionWebhook;
let freshCaches = '';
before(async () => {
  converter = await startGadgetConverter();
  freshCaches = await mkdtemp(path.join(tmpdir(), 'pgkube-e2e-crd-'));
});
after(async () => {
  await converter?.close();
  if (freshCaches) await rm(freshCaches, { recursive: true, force: true });
});

/** Asserts kubectl failed (exit 1) and returns its stderr. */
function failed(result: KubectlResult): string {
  assert.equal(result.code, 1, `kubectl exited ${result.code}${result.timedOut ? ' (timed out)' : ''}, expected 1:\n${result.stderr}\n${result.stdout}`);
  return result.stderr;
}

/** The server's 415 for a strategic merge patch, as kubectl's patch command wraps it (cmd/patch/patch.go). */
const unsupportedPatch = (group: string) =>
  `error: application/strategic-merge-patch+json is not supported by ${group}/v1, Kind=Certificate: ` +
  'the body of the request was in an unknown format - accepted media types include: ' +
  'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n';

/** An age as kubectl prints it (`5s`, `2m3s`, `4m`). */
const AGE = /^(\d+s|\d+m(\d+s)?)$/;

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: CustomResourceDefinitions`, { skip: skipReason(version) }, () => {
    const tag = version.replace('.', '');
    const minor = Number(version.split('.')[1]);
    const ns = namespaceFor('e2e-crd', version);
    // CRDs are cluster-wide: each kubectl version gets groups (and a category) of its own.
    const group = `v${tag}.certs.example.com`;
    const convGroup = `v${tag}.gadgets.example.com`;
    const category = `certs${tag}`;
    const crdName = `certificates.${group}`;
    const qualified = (name: string) => `certificate.${group}/${name}`;
    let k: Kubectl;
    const kn = (args: string[], options?: { input?: string; timeoutMs?: number }) => k.run(['-n', ns, ...args], options);
    /** `kubectl apply -f -` (or create, with `verb`) of one object as YAML. */
    const feed = (verb: string[], object: unknown) => kn([...verb, '-f', '-'], { input: dump(object) });
    const getJson = async (...what: string[]): Promise<any> => JSON.parse(ok(await kn(['get', ...what, '-o', 'json'])));
    /** kubectl with a discovery cache of its own, created now (what a user on another machine sees). */
    const uncached = async () => kubectl(version, e2e().srv.kubeconfig, await mkdtemp(path.join(freshCaches, `${tag}-`)));
    const waitEstablished = async (name: string) =>
      assert.equal(ok(await k.run(['wait', '--for', 'condition=established', '--timeout=30s', `crd/${name}`], { timeoutMs: 40_000 })), `customresourcedefinition.apiextensions.k8s.io/${name} condition met\n`);

    before(async () => {
      k = e2e().kubectl(version);
      ok(await k.run(['create', 'namespace', ns]));
    });

    it('applies a cert-manager-like CRD; wait --for condition=established returns once it is served', async () => {
      assert.equal(ok(await feed(['apply'], certificateCrd(group, category))), `customresourcedefinition.apiextensions.k8s.io/${crdName} created\n`);
      await waitEstablished(crdName);
      const crd = await getJson('crd', crdName);
      assert.deepEqual(crd.status.acceptedNames, {
        kind: 'Certificate',
        listKind: 'CertificateList',
        plural: 'certificates',
        singular: 'certificate',
        shortNames: ['cert', 'certs'],
        categories: [category],
      });
      const conditions = Object.fromEntries(crd.status.conditions.map((c: any) => [c.type, c]));
      assert.equal(conditions.NamesAccepted?.status, 'True');
      assert.equal(conditions.NamesAccepted?.reason, 'NoConflicts');
      assert.equal(conditions.Established?.status, 'True');
      assert.equal(conditions.Established?.reason, 'InitialNamesAccepted');
      assert.deepEqual(crd.status.storedVersions, ['v1']);
      // The cleanup finalizer is added by the first delete (registry/customresourcedefinition/etcd.go), not on create.
      assert.equal(crd.metadata.finalizers, undefined);

      // The group version's discovery document (apiextensions-apiserver's discovery controller):
      // the resource with the CRD's names and the storage version hash, then its status subresource.
      const discovery = JSON.parse(ok(await k.run(['get', '--raw', `/apis/${group}/v1`])));
      assert.deepEqual(discovery, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `${group}/v1`,
        resources: [
          {
            name: 'certificates',
            singularName: 'certificate',
            namespaced: true,
            kind: 'Certificate',
            verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
            shortNames: ['cert', 'certs'],
            categories: [category],
            storageVersionHash: createHash('sha256').update(`${group}/v1/Certificate`).digest().subarray(0, 8).toString('base64'),
          },
          { name: 'certificates/status', singularName: '', namespaced: true, kind: 'Certificate', verbs: ['get', 'patch', 'update'] },
        ],
      });
    });

    it('creates a Certificate and finds it by plural, singular, short name, kind and resource.group', async () => {
      const web = certificate(group, ns, 'web', { secretName: 'web-tls', dnsNames: ['web.example.com'], issuerRef: { name: 'letsencrypt' } });
      assert.equal(ok(await feed(['create'], web)), `${qualified('web')} created\n`);
      for (const name of ['certificates', 'certificate', 'cert', 'certs', `certificates.${group}`, `certificates.v1.${group}`, `Certificate`]) {
        assert.equal(ok(await kn(['get', name, 'web', '-o', 'name'])), `${qualified('web')}\n`, `kubectl get ${name} web`);
      }
    });

    it('get -o yaml shows the schema defaults filled in, and the object as stored', async () => {
      const web = await getJson('certificate', 'web');
      assert.equal(web.apiVersion, `${group}/v1`);
      assert.equal(web.kind, 'Certificate');
      assert.equal(web.metadata.generation, 1);
      assert.match(web.metadata.uid, /^[0-9a-f-]{36}$/);
      assert.deepEqual(web.spec, {
        secretName: 'web-tls',
        dnsNames: ['web.example.com'],
        duration: '2160h',
        issuerRef: { name: 'letsencrypt', kind: 'Issuer' },
        privateKey: { algorithm: 'RSA' },
      });
      const yaml = ok(await kn(['get', 'certificate', 'web', '-o', 'yaml']));
      assert.match(yaml, /^ {2}duration: 2160h$/m);
      assert.match(yaml, /^ {4}algorithm: RSA$/m);
    });

    it('get prints the CRD printer columns; -o wide adds those of priority 1; READY follows the Ready condition', async () => {
      const plain = ok(await kn(['get', 'certificates']));
      assert.deepEqual(plain.split('\n')[0]!.split(/\s+/), ['NAME', 'READY', 'SECRET', 'AGE']);
      let [row] = parseTable(plain);
      assert.equal(row?.NAME, 'web');
      assert.equal(row?.READY, '', 'no Ready condition yet: an empty cell');
      assert.equal(row?.SECRET, 'web-tls');
      assert.match(row?.AGE ?? '', AGE);

      // The controller's status write goes through the status subresource and leaves the generation.
      assert.equal(ok(await kn(['patch', 'certificate', 'web', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: readyStatus() })])), `${qualified('web')} patched\n`);
      [row] = parseTable(ok(await kn(['get', 'certificates'])));
      assert.equal(row?.READY, 'True');
      // What scripts do after installing a certificate: wait for its Ready condition.
      assert.equal(ok(await kn(['wait', '--for=condition=Ready', '--timeout=10s', 'certificate/web'], { timeoutMs: 20_000 })), `${qualified('web')} condition met\n`);

      const everywhere = ok(await k.run(['get', 'certificates', '--all-namespaces']));
      assert.deepEqual(everywhere.split('\n')[0]!.split(/\s+/), ['NAMESPACE', 'NAME', 'READY', 'SECRET', 'AGE']);
      assert.deepEqual(parseTable(everywhere).map((r) => [r.NAMESPACE, r.NAME, r.READY]), [[ns, 'web', 'True']]);

      const wide = ok(await kn(['get', 'certificates', '-o', 'wide']));
      assert.deepEqual(wide.split('\n')[0]!.split(/\s+/), ['NAME', 'READY', 'SECRET', 'ISSUER', 'STATUS', 'AGE']);
      [row] = parseTable(wide);
      assert.equal(row?.ISSUER, 'letsencrypt');
      assert.equal(row?.STATUS, 'Certificate is up to date and has not expired');

      const web = await getJson('certificate', 'web');
      assert.equal(web.metadata.generation, 1);
      assert.equal(web.status.conditions[0].status, 'True');
    });

    it('the main resource ignores status; a spec change bumps the generation', async () => {
      const patch = { spec: { secretName: 'web-tls-1' }, status: { notAfter: '2030-01-01T00:00:00Z' } };
      ok(await kn(['patch', 'certificate', 'web', '--type=merge', '-p', JSON.stringify(patch)]));
      const web = await getJson('certificate', 'web');
      assert.equal(web.spec.secretName, 'web-tls-1');
      assert.equal(web.status.notAfter, '2027-02-25T11:00:00Z', 'status is written only through /status');
      assert.equal(web.metadata.generation, 2);
    });

    it('label, annotate and select by label, by metadata.name and by the CRD selectable field', async () => {
      assert.equal(ok(await kn(['label', 'certificate', 'web', 'env=prod'])), `${qualified('web')} labeled\n`);
      // kubectl 1.27's annotate says "annotate" (its own wording, not the server's).
      assert.equal(ok(await kn(['annotate', 'certificate', 'web', 'owner=team-a'])), `${qualified('web')} ${minor <= 27 ? 'annotate' : 'annotated'}\n`);
      const other = certificate(group, ns, 'other', { secretName: 'other-tls', commonName: 'other', issuerRef: { name: 'self-signed' } });
      ok(await feed(['create'], other));
      assert.equal(ok(await kn(['get', 'certificates', '-l', 'env=prod', '-o', 'name'])), `${qualified('web')}\n`);
      assert.equal(ok(await kn(['get', 'certificates', '--field-selector', 'metadata.name=other', '-o', 'name'])), `${qualified('other')}\n`);
      assert.equal(ok(await kn(['get', 'certificates', '--field-selector', 'spec.issuerRef.name=letsencrypt', '-o', 'name'])), `${qualified('web')}\n`);
      assert.equal(ok(await kn(['get', 'certificates', '--field-selector', 'spec.issuerRef.name!=letsencrypt', '-o', 'name'])), `${qualified('other')}\n`);
      // A path that is not a selectable field is refused (400), as upstream's "field label not supported".
      const refused = failed(await kn(['get', 'certificates', '--field-selector', 'spec.secretName=web-tls-1']));
      assert.match(refused, /^Error from server \(BadRequest\): .*field label not supported: spec\.secretName\n$/);
      const web = await getJson('certificate', 'web');
      assert.equal(web.metadata.labels.env, 'prod');
      assert.equal(web.metadata.annotations.owner, 'team-a');
      assert.equal(ok(await kn(['delete', 'certificate', 'other'])), `certificate.${group} "other" deleted\n`);
    });

    it('get -w prints the watched Certificate again when it changes', async () => {
      const watch = k.start(['-n', ns, 'get', 'certificates', 'web', '-w'], { timeoutMs: 30_000 });
      try {
        await watch.waitFor(/web\s+True\s+web-tls-1\s/);
        ok(await kn(['patch', 'certificate', 'web', '--type=merge', '-p', '{"spec":{"secretName":"web-tls-2"}}']));
        const out = await watch.waitFor(/web\s+True\s+web-tls-2\s/);
        assert.equal(out.split('\n').filter((l) => l.startsWith('NAME')).length, 1, `one header:\n${out}`);
      } finally {
        await watch.stop();
      }
    });

    it('patch --type json changes a list item; a strategic merge patch is refused with 415', async () => {
      const jsonPatch = [{ op: 'replace', path: '/spec/dnsNames/0', value: 'www.example.com' }, { op: 'add', path: '/spec/dnsNames/-', value: 'example.com' }];
      assert.equal(ok(await kn(['patch', 'certificate', 'web', '--type=json', '-p', JSON.stringify(jsonPatch)])), `${qualified('web')} patched\n`);
      assert.deepEqual((await getJson('certificate', 'web')).spec.dnsNames, ['www.example.com', 'example.com']);

      // kubectl patch's default type is strategic, which custom resources do not have.
      assert.equal(failed(await kn(['patch', 'certificate', 'web', '-p', '{"spec":{"commonName":"web"}}'])), unsupportedPatch(group));
      assert.equal(failed(await kn(['patch', 'certificate', 'web', '--type=strategic', '-p', '{"spec":{"commonName":"web"}}'])), unsupportedPatch(group));
      assert.equal((await getJson('certificate', 'web')).spec.commonName, undefined);
    });

    it('apply (client-side) creates, leaves alone, and changes by a three-way JSON merge patch', async () => {
      const api = (spec: Record<string, unknown>) => certificate(group, ns, 'api', { secretName: 'api-tls', issuerRef: { name: 'letsencrypt' }, ...spec });
      assert.equal(ok(await feed(['apply'], api({ commonName: 'api.example.com', dnsNames: ['api.example.com'] }))), `${qualified('api')} created\n`);
      assert.equal(ok(await feed(['apply'], api({ commonName: 'api.example.com', dnsNames: ['api.example.com'] }))), `${qualified('api')} unchanged\n`);
      // commonName dropped from the manifest is removed; the defaults the server filled stay.
      assert.equal(ok(await feed(['apply'], api({ dnsNames: ['api.example.com', 'api2.example.com'] }))), `${qualified('api')} configured\n`);
      const got = await getJson('certificate', 'api');
      assert.deepEqual(got.spec, {
        secretName: 'api-tls',
        dnsNames: ['api.example.com', 'api2.example.com'],
        issuerRef: { name: 'letsencrypt', kind: 'Issuer' },
        duration: '2160h',
        privateKey: { algorithm: 'RSA' },
      });
      const lastApplied = JSON.parse(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
      assert.deepEqual(lastApplied.spec.dnsNames, ['api.example.com', 'api2.example.com']);
      assert.equal(got.metadata.generation, 2);
    });

    it('apply --server-side creates and changes; managedFields record the Apply at the CRD version', async () => {
      const ssa = (secretName: string) => certificate(group, ns, 'ssa', { secretName, commonName: 'ssa.example.com', issuerRef: { name: 'ca' } });
      assert.equal(ok(await feed(['apply', '--server-side'], ssa('ssa-tls'))), `${qualified('ssa')} serverside-applied\n`);
      assert.equal(ok(await feed(['apply', '--server-side'], ssa('ssa-tls-2'))), `${qualified('ssa')} serverside-applied\n`);
      const got = JSON.parse(ok(await kn(['get', 'certificate', 'ssa', '-o', 'json', '--show-managed-fields'])));
      assert.equal(got.spec.secretName, 'ssa-tls-2');
      assert.equal(got.spec.duration, '2160h');
      const [entry, ...others] = got.metadata.managedFields;
      assert.equal(others.length, 0, JSON.stringify(got.metadata.managedFields));
      assert.equal(entry.manager, 'kubectl');
      assert.equal(entry.operation, 'Apply');
      assert.equal(entry.apiVersion, `${group}/v1`);
      assert.deepEqual(entry.fieldsV1, { 'f:spec': { 'f:commonName': {}, 'f:issuerRef': { 'f:name': {} }, 'f:secretName': {} } });
    });

    it('a CEL rule and the schema refuse bad objects; kubectl prints the causes as upstream words them', async () => {
      const noName = certificate(group, ns, 'bad', { secretName: 'bad-tls', issuerRef: { name: 'ca' } });
      assert.equal(failed(await feed(['create'], noName)), `The Certificate "bad" is invalid: spec: Invalid value: "object": ${NEEDS_A_NAME}\n`);
      const badKey = certificate(group, ns, 'bad', { secretName: 'bad-tls', commonName: 'bad', issuerRef: { name: 'ca' }, privateKey: { algorithm: 'DSA' } });
      // An enum violation blocks the CEL rules, which says so in a cause of its own whose path is nil
      // (hasBlockingErr in registry/customresource/strategy.go; field.Path's String of nil is "<nil>").
      assert.equal(
        failed(await feed(['create'], badKey)),
        'The Certificate "bad" is invalid: \n' +
          '* spec.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"\n' +
          '* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n',
      );
      // An update that breaks the rule is refused alike, and leaves the object as it was.
      const res = await kn(['patch', 'certificate', 'web', '--type=json', '-p', '[{"op":"remove","path":"/spec/dnsNames"}]']);
      assert.equal(failed(res), `The Certificate "web" is invalid: spec: Invalid value: "object": ${NEEDS_A_NAME}\n`);
      assert.equal((await getJson('certificate', 'web')).spec.dnsNames.length, 2);
      assert.equal(failed(await kn(['get', 'certificate', 'bad'])), `Error from server (NotFound): certificates.${group} "bad" not found\n`);
    });

    it('strict field validation refuses an unknown field; --validate=warn prunes it with a warning', async () => {
      const withBogus = certificate(group, ns, 'loose', { secretName: 'loose-tls', commonName: 'loose', issuerRef: { name: 'ca' }, bogus: true });
      assert.equal(
        failed(await feed(['create'], withBogus)),
        `Error from server (BadRequest): error when creating "STDIN": Certificate in version "v1" cannot be handled as a Certificate: strict decoding error: unknown field "spec.bogus"\n`,
      );
      const warned = await feed(['create', '--validate=warn'], withBogus);
      assert.equal(ok(warned), `${qualified('loose')} created\n`);
      assert.equal(warned.stderr, 'Warning: unknown field "spec.bogus"\n');
      assert.equal((await getJson('certificate', 'loose')).spec.bogus, undefined, 'pruned');
      ok(await kn(['delete', 'certificate', 'loose']));
    });

    it('explain reads the Certificate schema (OpenAPI v3)', async () => {
      const out = ok(await kn(['explain', 'certificates.spec.issuerRef']));
      assert.match(out, /^KIND:\s+Certificate$/m);
      assert.match(out, /^VERSION:\s+v1$/m);
      assert.match(out, /^\s+name\s+<string> -required-$/m);
      assert.match(out, /^\s+kind\s+<string>$/m);
      const top = ok(await kn(['explain', 'certificate']));
      // kubectl wraps descriptions at 80 columns.
      assert.match(top, /^DESCRIPTION:\n {4}A Certificate resource should be created to ensure an up to date and signed\s+X\.509 certificate/m);
      assert.match(top, /^ {2}spec\t<Object> -required-$/m);
      assert.match(top, /^ {2}status\t<Object>$/m);
    });

    it('replace writes the whole object; a stale resourceVersion is refused with a Conflict', async () => {
      const current = await getJson('certificate', 'api');
      const stale = structuredClone(current);
      current.spec.secretName = 'api-tls-2';
      assert.equal(ok(await kn(['replace', '-f', '-'], { input: JSON.stringify(current) })), `${qualified('api')} replaced\n`);
      assert.equal((await getJson('certificate', 'api')).spec.secretName, 'api-tls-2');
      stale.spec.secretName = 'lost';
      assert.equal(
        failed(await kn(['replace', '-f', '-'], { input: JSON.stringify(stale) })),
        `Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on certificates.${group} "api": ` +
          'the object has been modified; please apply your changes to the latest version and try again\n',
      );
    });

    it('an updated CRD is served at once: a new printer column and a new schema field', async () => {
      const crd = certificateCrd(group, category);
      const v1 = crd.spec.versions[0];
      v1.additionalPrinterColumns.splice(2, 0, { name: 'Duration', type: 'string', jsonPath: '.spec.duration' });
      v1.schema.openAPIV3Schema.properties.spec.properties.revisionHistoryLimit = { type: 'integer', minimum: 1 };
      assert.equal(ok(await feed(['apply'], crd)), `customresourcedefinition.apiextensions.k8s.io/${crdName} configured\n`);
      // The served kind is rebuilt from the CRD's informer, as upstream's crdHandler does: allow it a moment.
      let header: string[] = [];
      for (let i = 0; i < 50; i++) {
        header = ok(await kn(['get', 'certificates'])).split('\n')[0]!.split(/\s+/);
        if (header.includes('DURATION')) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.deepEqual(header, ['NAME', 'READY', 'SECRET', 'DURATION', 'AGE']);
      const row = parseTable(ok(await kn(['get', 'certificates', 'web'])))[0];
      assert.equal(row?.DURATION, '2160h');

      // The new field is kept (not pruned), and validated.
      ok(await kn(['patch', 'certificate', 'web', '--type=merge', '-p', '{"spec":{"revisionHistoryLimit":3}}']));
      assert.equal((await getJson('certificate', 'web')).spec.revisionHistoryLimit, 3);
      assert.equal(
        failed(await kn(['patch', 'certificate', 'web', '--type=merge', '-p', '{"spec":{"revisionHistoryLimit":0}}'])),
        'The Certificate "web" is invalid: spec.revisionHistoryLimit: Invalid value: 0: spec.revisionHistoryLimit in body should be greater than or equal to 1\n',
      );
    });

    it('kubectl get <category> lists the Certificates', async () => {
      assert.equal(ok(await kn(['get', category, '-o', 'name'])), ['api', 'ssa', 'web'].map((n) => `${qualified(n)}\n`).join(''));
    });

    it('delete removes a Certificate', async () => {
      assert.equal(ok(await kn(['delete', 'certificate', 'ssa'])), `certificate.${group} "ssa" deleted\n`);
      assert.equal(failed(await kn(['get', 'certificate', 'ssa'])), `Error from server (NotFound): certificates.${group} "ssa" not found\n`);
      assert.equal(ok(await kn(['get', 'certs', '-o', 'name'])), `${qualified('api')}\n${qualified('web')}\n`);
    });

    it('a two-version CRD converted by an HTTPS webhook: objects written in one version read in the other', async () => {
      const gadgets = `gadgets.${convGroup}`;
      assert.equal(ok(await feed(['apply'], gadgetCrd(convGroup, converter))), `customresourcedefinition.apiextensions.k8s.io/${gadgets} created\n`);
      await waitEstablished(gadgets);
      const gadget = (name: string, v: string, spec: Record<string, unknown>) => ({ apiVersion: `${convGroup}/${v}`, kind: 'Gadget', metadata: { name, namespace: ns }, spec });
      converter.reviews.length = 0;

      // Written as v1alpha1, stored as v1.
      assert.equal(ok(await feed(['apply'], gadget('one', 'v1alpha1', { host: 'a.example.com' }))), `gadget.${convGroup}/one created\n`);
      const oneV1 = await getJson(`gadgets.v1.${convGroup}`, 'one');
      assert.equal(oneV1.apiVersion, `${convGroup}/v1`);
      assert.deepEqual(oneV1.spec, { hosts: ['a.example.com'] });
      const oneAlpha = await getJson(`gadgets.v1alpha1.${convGroup}`, 'one');
      assert.equal(oneAlpha.apiVersion, `${convGroup}/v1alpha1`);
      assert.deepEqual(oneAlpha.spec, { host: 'a.example.com' });
      assert.equal(oneAlpha.metadata.uid, oneV1.metadata.uid);

      // Written as v1, read as v1alpha1, one by one and in a list.
      assert.equal(ok(await feed(['apply'], gadget('two', 'v1', { hosts: ['b.example.com', 'c.example.com'] }))), `gadget.${convGroup}/two created\n`);
      assert.deepEqual((await getJson(`gadgets.v1alpha1.${convGroup}`, 'two')).spec, { host: 'b.example.com' });
      const list = await getJson(`gadgets.v1alpha1.${convGroup}`);
      assert.deepEqual(
        list.items.map((i: any) => [i.metadata.name, i.apiVersion, i.spec]),
        [
          ['one', `${convGroup}/v1alpha1`, { host: 'a.example.com' }],
          ['two', `${convGroup}/v1alpha1`, { host: 'b.example.com' }],
        ],
      );
      // A merge patch sent at v1alpha1 is applied there and stored as v1.
      ok(await kn(['patch', `gadgets.v1alpha1.${convGroup}`, 'one', '--type=merge', '-p', '{"spec":{"host":"z.example.com"}}']));
      assert.deepEqual((await getJson(`gadgets.v1.${convGroup}`, 'one')).spec, { hosts: ['z.example.com'] });
      // The preferred version (kubectl's default) is v1: kube-aware version priority.
      assert.deepEqual((await getJson('gadgets', 'two')).spec, { hosts: ['b.example.com', 'c.example.com'] });

      // A version without printer columns prints NAME and AGE.
      const table = ok(await kn(['get', 'gadgets']));
      assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'AGE']);
      assert.deepEqual(parseTable(table).map((r) => r.NAME), ['one', 'two']);

      // A watch at v1alpha1 sees a change written at v1, converted.
      const watch = k.start(['-n', ns, 'get', `gadgets.v1alpha1.${convGroup}`, 'two', '-w', '-o', 'jsonpath={.spec.host}{"\\n"}'], { timeoutMs: 30_000 });
      try {
        await watch.waitFor(/^b\.example\.com$/m);
        ok(await kn(['patch', `gadgets.v1.${convGroup}`, 'two', '--type=merge', '-p', '{"spec":{"hosts":["q.example.com"]}}']));
        await watch.waitFor(/^q\.example\.com$/m);
      } finally {
        await watch.stop();
      }

      const desired = new Set(converter.reviews.map((r) => r.request.desiredAPIVersion));
      assert.ok(desired.has(`${convGroup}/v1`) && desired.has(`${convGroup}/v1alpha1`), `reviews asked for ${[...desired]}`);
      assert.ok(converter.reviews.every((r) => r.apiVersion === 'apiextensions.k8s.io/v1'), 'the first listed review version (v1) is used');
    });

    // Managed fields recorded at another version are compared against the objects converted to it
    // (upstream's Updater converts through the CRD's converter, here a webhook).
    it('server-side apply across versions: a field owned at v1alpha1 conflicts with its v1 form; force takes it', async () => {
      const gadgets = `gadgets.${convGroup}`;
      const gadget = (v: string, spec: Record<string, unknown>) => ({ apiVersion: `${convGroup}/${v}`, kind: 'Gadget', metadata: { name: 'three', namespace: ns }, spec });
      assert.equal(ok(await feed(['apply', '--server-side', '--field-manager=alpha'], gadget('v1alpha1', { host: 'x.example.com' }))), `gadget.${convGroup}/three serverside-applied\n`);
      // Conflicts are found at each manager's own version (structured-merge-diff's Updater converts the
      // objects to it): beta's hosts at v1 is alpha's host at v1alpha1.
      const res = await feed(['apply', '--server-side', '--field-manager=beta'], gadget('v1', { hosts: ['y.example.com'] }));
      if (res.code === 0) {
        const now = JSON.parse(ok(await kn(['get', `gadgets.v1.${convGroup}`, 'three', '-o', 'json', '--show-managed-fields'])));
        const managers = now.metadata.managedFields.map((e: any) => [e.manager, e.apiVersion, e.fieldsV1]);
        assert.fail(`beta's apply was accepted: spec ${JSON.stringify(now.spec)}, managedFields ${JSON.stringify(managers)}`);
      }
      const conflict = failed(res);
      assert.ok(conflict.startsWith('error: Apply failed with 1 conflict: conflict with "alpha": .spec.host\n'), conflict);
      assert.deepEqual((await getJson(`gadgets.v1.${convGroup}`, 'three')).spec, { hosts: ['x.example.com'] });

      assert.equal(ok(await feed(['apply', '--server-side', '--field-manager=beta', '--force-conflicts'], gadget('v1', { hosts: ['y.example.com'] }))), `gadget.${convGroup}/three serverside-applied\n`);
      const got = JSON.parse(ok(await kn(['get', `gadgets.v1.${convGroup}`, 'three', '-o', 'json', '--show-managed-fields'])));
      assert.deepEqual(got.spec, { hosts: ['y.example.com'] });
      // alpha lost its only field, so its entry is gone.
      assert.deepEqual(
        got.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion, e.fieldsV1]),
        [['beta', 'Apply', `${convGroup}/v1`, { 'f:spec': { 'f:hosts': {} } }]],
      );
      assert.equal(ok(await k.run(['delete', 'crd', gadgets], { timeoutMs: 40_000 })), `customresourcedefinition.apiextensions.k8s.io "${gadgets}" deleted\n`);
    });

    it('kubectl scale works through the CRD scale subresource', async () => {
      const poolGroup = `v${tag}.pools.example.com`;
      ok(await feed(['apply'], poolCrd(poolGroup)));
      await waitEstablished(`pools.${poolGroup}`);
      ok(await feed(['create'], { apiVersion: `${poolGroup}/v1`, kind: 'Pool', metadata: { name: 'p', namespace: ns }, spec: { replicas: 1 } }));
      ok(await kn(['patch', 'pool', 'p', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":1,"selector":"app=p"}}']));
      assert.equal(ok(await kn(['scale', 'pool', 'p', '--replicas=3'])), `pool.${poolGroup}/p scaled\n`);
      assert.equal((await getJson('pool', 'p')).spec.replicas, 3);
      const scale = JSON.parse(ok(await k.run(['get', '--raw', `/apis/${poolGroup}/v1/namespaces/${ns}/pools/p/scale`])));
      assert.equal(scale.apiVersion, 'autoscaling/v1');
      assert.equal(scale.kind, 'Scale');
      assert.deepEqual([scale.metadata.name, scale.metadata.namespace], ['p', ns]);
      assert.deepEqual(scale.spec, { replicas: 3 });
      assert.deepEqual(scale.status, { replicas: 1, selector: 'app=p' });
      // A negative count (sent as a patch of the subresource: kubectl scale refuses it before sending) is
      // written into the Pool and refused by the Pool's validation: its schema, then the scale paths'
      // own check, named by the CRD's path with its leading dot (customresource/validator.go ValidateScaleSpec).
      assert.equal(
        failed(await kn(['patch', 'pool', 'p', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":-1}}'])),
        'The Pool "p" is invalid: \n' +
          '* spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0\n' +
          '* .spec.replicas: Invalid value: -1: should be a non-negative integer\n',
      );
      ok(await k.run(['delete', 'crd', `pools.${poolGroup}`], { timeoutMs: 40_000 }));
    });

    it('deleting the CRD deletes its objects; the kind leaves api-resources and discovery', async () => {
      const before = parseTable(ok(await k.run(['api-resources', `--api-group=${group}`])));
      assert.deepEqual(before, [{ NAME: 'certificates', SHORTNAMES: 'cert,certs', APIVERSION: `${group}/v1`, NAMESPACED: 'true', KIND: 'Certificate' }]);
      assert.equal(ok(await k.run(['api-resources', `--api-group=${group}`, '-o', 'name'])), `certificates.${group}\n`);

      // kubectl waits for the object to go: the cleanup finalizer deletes the Certificates first.
      assert.equal(ok(await k.run(['delete', 'crd', crdName], { timeoutMs: 60_000 })), `customresourcedefinition.apiextensions.k8s.io "${crdName}" deleted\n`);
      assert.equal(failed(await k.run(['get', 'crd', crdName])), `Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io "${crdName}" not found\n`);
      // api-resources prints its header even with nothing under it: -o name shows what is left.
      assert.equal(ok(await k.run(['api-resources', `--api-group=${group}`, '-o', 'name'])), '');
      assert.equal(failed(await (await uncached()).run(['-n', ns, 'get', 'certificates'])), `error: the server doesn't have a resource type "certificates"\n`);

      // The same CRD made again serves no leftover objects.
      ok(await feed(['apply'], certificateCrd(group, category)));
      await waitEstablished(crdName);
      const again = await (await uncached()).run(['-n', ns, 'get', 'certificates']);
      assert.equal(ok(again), '');
      assert.equal(again.stderr, `No resources found in ${ns} namespace.\n`);
    });

    it('a Certificate with a finalizer holds its CRD Terminating, which refuses creates, until the finalizer goes', async () => {
      const held = certificate(group, ns, 'held', { secretName: 'held-tls', commonName: 'held', issuerRef: { name: 'ca' } });
      held.metadata.finalizers = ['example.com/hold'];
      ok(await feed(['create'], held));
      assert.equal(ok(await k.run(['delete', 'crd', crdName, '--wait=false'])), `customresourcedefinition.apiextensions.k8s.io "${crdName}" deleted\n`);

      // The cleanup controller marks the CRD Terminating and deletes the Certificate, which its finalizer holds.
      let crd: any;
      let cert: any;
      for (let i = 0; i < 75 && !(crd?.status?.conditions?.some((c: any) => c.type === 'Terminating' && c.status === 'True') && cert?.metadata?.deletionTimestamp); i++) {
        await new Promise((r) => setTimeout(r, 200));
        crd = await getJson('crd', crdName);
        cert = await getJson('certificate', 'held');
      }
      assert.ok(crd.metadata.deletionTimestamp, 'the CRD is being deleted');
      assert.deepEqual(crd.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
      const terminating = crd.status.conditions.find((c: any) => c.type === 'Terminating');
      assert.equal(terminating?.status, 'True', JSON.stringify(crd.status.conditions));
      assert.ok(['InstanceDeletionInProgress', 'InstanceDeletionCheck'].includes(terminating.reason), terminating.reason);
      assert.ok(cert.metadata.deletionTimestamp, 'the Certificate is being deleted');

      const late = certificate(group, ns, 'late', { secretName: 'late-tls', commonName: 'late', issuerRef: { name: 'ca' } });
      assert.equal(
        failed(await feed(['create'], late)),
        'Error from server (MethodNotAllowed): error when creating "STDIN": create not allowed while custom resource definition is terminating\n',
      );

      ok(await kn(['patch', 'certificate', 'held', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']));
      // Upstream's controller looks again every 5 s for up to a minute before it lets the CRD go.
      let gone = false;
      for (let i = 0; i < 150 && !gone; i++) {
        const res = await k.run(['get', 'crd', crdName, '-o', 'name']);
        gone = res.code === 1 && res.stderr.includes('NotFound');
        if (!gone) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(gone, `${crdName} is still there`);
    });
  });
}
