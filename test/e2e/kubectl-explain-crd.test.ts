/**
 * kubectl against custom resources published in discovery and OpenAPI: `explain` reads the CRD's
 * schema from OpenAPI, `api-resources` its names from discovery, and `create -f` of an object with
 * a field the schema does not know is refused, once per kubectl version. The kinds are put on the
 * server's surface directly (customResourceKinds), without the CRD controllers.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { customResourceKinds } from '../../src/crd/serving/kinds.ts';
import type { CustomResourceDefinition } from '../../src/crd/validation/types.ts';
import { KUBECTL_VERSIONS, parseTable, skipReason, type Kubectl } from '../helpers/kubectl.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

const e2e = useServer();

const names = { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all', 'jobs'] };
const cronTabs: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    names,
    scope: 'Namespaced',
    versions: [{
      name: 'v1',
      served: true,
      storage: true,
      subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          description: 'A CronTab runs a command on a schedule.',
          type: 'object',
          properties: {
            spec: {
              description: 'What to run and when.',
              type: 'object',
              required: ['cronSpec'],
              properties: {
                cronSpec: { description: 'The schedule, in cron format.', type: 'string' },
                image: { description: 'The image to run.', type: 'string' },
                replicas: { description: 'How many copies run at once.', type: 'integer', minimum: 1 },
              },
            },
            status: { type: 'object', properties: { lastRun: { type: 'string', format: 'date-time' } } },
          },
        },
      },
    }],
  },
  status: { acceptedNames: names, storedVersions: ['v1'], conditions: [{ type: 'Established', status: 'True' }] },
};

/** Serves the CRD's kinds once (a suite's hook: the file's own hooks may run before the server starts). */
function serveCronTabs(): void {
  const surface = e2e().srv.server.surface;
  if (surface.lookup('stable.example.com', 'v1', 'crontabs')) return;
  for (const kind of customResourceKinds(cronTabs)) surface.add(kind);
}

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: custom resources in discovery and OpenAPI`, { skip: skipReason(version) }, () => {
    const ns = namespaceFor('e2e-crd-explain', version);
    let k: Kubectl;

    before(async () => {
      serveCronTabs();
      k = e2e().kubectl(version);
      ok(await k.run(['create', 'namespace', ns]));
    });

    it('explain <cr> shows the kind, its version and its top-level fields', async () => {
      const out = ok(await k.run(['explain', 'crontabs']));
      assert.match(out, /^(GROUP|KIND):\s+/m);
      assert.match(out, /KIND:\s+CronTab/);
      assert.match(out, /VERSION:\s+(stable\.example\.com\/)?v1/);
      assert.match(out, /A CronTab runs a command on a schedule\./);
      for (const field of ['apiVersion', 'kind', 'metadata', 'spec', 'status']) assert.match(out, new RegExp(`^\\s+${field}\\s`, 'm'), out);
    });

    it('explain <cr>.spec shows the fields of the schema with their descriptions and required markers', async () => {
      const out = ok(await k.run(['explain', 'ct.spec']));
      assert.match(out, /FIELD:\s+spec/);
      assert.match(out, /What to run and when\./);
      assert.match(out, /cronSpec\s+<string>\s+-required-/);
      assert.match(out, /The schedule, in cron format\./);
      assert.match(out, /replicas\s+<integer>/);
      assert.match(out, /How many copies run at once\./);
    });

    it('explain --output=plaintext-openapiv2 reads the v2 document: the schema as v2 can say it', async () => {
      const out = ok(await k.run(['explain', 'crontabs.spec', '--output=plaintext-openapiv2']));
      assert.match(out, /KIND:\s+CronTab/);
      assert.match(out, /VERSION:\s+stable\.example\.com\/v1/);
      assert.match(out, /cronSpec\s+<string> -required-/);
      assert.match(out, /The schedule, in cron format\./);
      assert.match(out, /replicas\s+<integer>/);
    });

    it('api-resources lists the custom resource with its short names, kind and scope', async () => {
      const rows = parseTable(ok(await k.run(['api-resources', '--api-group=stable.example.com'])));
      assert.deepEqual(rows, [{ NAME: 'crontabs', SHORTNAMES: 'ct', APIVERSION: 'stable.example.com/v1', NAMESPACED: 'true', KIND: 'CronTab' }]);
      const wide = ok(await k.run(['api-resources', '--api-group=stable.example.com', '-o', 'wide']));
      assert.match(wide, /all,jobs/);
      const inCategory = ok(await k.run(['api-resources', '--categories=jobs', '-o', 'name']));
      assert.equal(inCategory, 'crontabs.stable.example.com\n');
    });

    it('create -f of a custom resource with an unknown field is refused, and nothing is created', async () => {
      const manifest = [
        'apiVersion: stable.example.com/v1',
        'kind: CronTab',
        'metadata:',
        '  name: nightly',
        'spec:',
        '  cronSpec: "0 3 * * *"',
        '  bogus: true',
        '',
      ].join('\n');
      const res = await k.run(['-n', ns, 'create', '-f', '-'], { input: manifest });
      assert.notEqual(res.code, 0, res.stdout);
      // kubectl finds fieldValidation on the kind's PATCH in OpenAPI and asks the server to be strict, as
      // it does with a real 1.34 server; the answer is the strict decoding error.
      assert.equal(res.stderr.trim().split('\n').at(-1),
        'Error from server (BadRequest): error when creating "STDIN": CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.bogus"');
      const get = await k.run(['-n', ns, 'get', 'crontab', 'nightly']);
      assert.notEqual(get.code, 0);
      assert.match(get.stderr, /NotFound|not found/);
    });
  });
}
