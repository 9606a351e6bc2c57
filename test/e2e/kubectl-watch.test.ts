/**
 * kubectl watching and paging: `get -w` (with and without `--output-watch-events`) sees creations,
 * changes and deletions; `--chunk-size` pages through a list with continue tokens. Once per kubectl
 * version.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { KUBECTL_VERSIONS, loggedRequests, parseTable, skipReason, type Kubectl } from '../helpers/kubectl.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

const e2e = useServer();

/** How many lines of `output` start with `name` as a table cell. */
function rowsNamed(output: string, column: number, name: string): number {
  return output.split('\n').filter((l) => l.split(/\s+/)[column] === name).length;
}

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: watch and chunked lists`, { skip: skipReason(version) }, () => {
    let k: Kubectl;
    before(() => {
      k = e2e().kubectl(version);
    });

    it('get cm -w and --output-watch-events show objects as they are created, changed and deleted', async () => {
      const ns = namespaceFor('e2e-watch', version);
      ok(await k.run(['create', 'namespace', ns]));
      ok(await k.run(['-n', ns, 'create', 'cm', 'early', '--from-literal=a=1']));

      const plain = k.start(['-n', ns, 'get', 'cm', '-w'], { timeoutMs: 30_000 });
      const events = k.start(['-n', ns, 'get', 'cm', '-w', '--output-watch-events'], { timeoutMs: 30_000 });
      try {
        // The initial list: the object that existed before the watch.
        await plain.waitFor(/^early\s+1\s/m);
        await events.waitFor(/^ADDED\s+early\s+1\s/m);

        ok(await k.run(['-n', ns, 'create', 'cm', 'late', '--from-literal=a=1', '--from-literal=b=2']));
        await plain.waitFor(/^late\s+2\s/m);
        await events.waitFor(/^ADDED\s+late\s+2\s/m);

        ok(await k.run(['-n', ns, 'patch', 'cm', 'late', '--type', 'merge', '-p', '{"data":{"c":"3"}}']));
        await plain.waitFor(/^late\s+3\s/m);
        await events.waitFor(/^MODIFIED\s+late\s+3\s/m);

        ok(await k.run(['-n', ns, 'delete', 'cm', 'early']));
        await events.waitFor(/^DELETED\s+early\s+1\s/m);
        // Without event types the deletion shows as the object's row once more.
        await plain.waitFor(/^early\s[\s\S]*^early\s/m);
      } finally {
        await Promise.all([plain.stop(), events.stop()]);
      }

      const plainRows = parseTable(plain.stdout());
      assert.deepEqual(
        plainRows.map((r) => `${r.NAME} ${r.DATA}`),
        ['early 1', 'late 2', 'late 3', 'early 1'],
      );
      const eventRows = parseTable(events.stdout());
      assert.deepEqual(
        eventRows.map((r) => `${r.EVENT} ${r.NAME} ${r.DATA}`),
        ['ADDED early 1', 'ADDED late 2', 'MODIFIED late 3', 'DELETED early 1'],
      );
      // Only one header, and no object from another namespace.
      assert.equal(rowsNamed(plain.stdout(), 0, 'NAME'), 1);
      assert.equal(rowsNamed(events.stdout(), 0, 'EVENT'), 1);
    });

    it('get cm -w in an empty namespace prints the first object that appears, with a header', async () => {
      const ns = namespaceFor('e2e-watch-empty', version);
      ok(await k.run(['create', 'namespace', ns]));
      const watch = k.start(['-n', ns, 'get', 'cm', '-w', '-o', 'name'], { timeoutMs: 30_000 });
      try {
        // Whether the object lands in the initial list or arrives as an event, it is printed once.
        ok(await k.run(['-n', ns, 'create', 'cm', 'first']));
        await watch.waitFor(/^configmap\/first$/m);
        ok(await k.run(['-n', ns, 'delete', 'cm', 'first']));
        await watch.waitFor(/^configmap\/first\nconfigmap\/first$/m);
      } finally {
        await watch.stop();
      }
      assert.equal(watch.stdout(), 'configmap/first\nconfigmap/first\n');
    });

    it('get cm --chunk-size=4 lists ten configmaps in pages of four, each exactly once and in order', async () => {
      const ns = namespaceFor('e2e-chunks', version);
      ok(await k.run(['create', 'namespace', ns]));
      const names = Array.from({ length: 10 }, (_, i) => `chunk-${String(i + 1).padStart(2, '0')}`);
      const manifest = names.map((n) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\ndata:\n  n: "${n}"\n`).join('---\n');
      assert.equal(ok(await k.run(['-n', ns, 'create', '-f', '-'], { input: manifest })), names.map((n) => `configmap/${n} created\n`).join(''));

      const res = await k.run(['-n', ns, 'get', 'cm', '--chunk-size=4', '-v=6']);
      assert.deepEqual(
        parseTable(ok(res)).map((r) => r.NAME),
        names,
      );
      const pages = loggedRequests(res.stderr).filter((r) => r.verb === 'GET' && r.url.pathname === `/api/v1/namespaces/${ns}/configmaps`);
      assert.equal(pages.length, 3, res.stderr);
      assert.ok(pages.every((p) => p.url.searchParams.get('limit') === '4'), res.stderr);
      assert.equal(pages[0]!.url.searchParams.get('continue'), null);
      const tokens = pages.slice(1).map((p) => p.url.searchParams.get('continue'));
      assert.ok(tokens.every((t) => t !== null && t !== ''), res.stderr);
      assert.notEqual(tokens[0], tokens[1]);

      // The same through -o name: the pages join into one list.
      const byName = await k.run(['-n', ns, 'get', 'cm', '--chunk-size=4', '-o', 'name']);
      assert.equal(ok(byName), names.map((n) => `configmap/${n}\n`).join(''));
    });
  });
}
