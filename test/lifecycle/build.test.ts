import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, symlink, appendFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { npmRun, ROOT } from '../helpers/npm-start.ts';

/** What a checkout holds that the build reads (node_modules is linked, not copied). */
const CHECKOUT = ['src', 'migrations', 'seeds', 'proto', 'scripts', 'package.json', 'tsconfig.json'];

const run = (cwd: string, args: string[]) => npmRun(args, { cwd });

describe('npm start runs compiled JavaScript, built once and again only when the sources change', { timeout: 120_000 }, () => {
  let checkout: string;
  before(async () => {
    checkout = await mkdtemp(path.join(tmpdir(), 'pgkube-build-'));
    for (const entry of CHECKOUT) await cp(path.join(ROOT, entry), path.join(checkout, entry), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
  });
  after(async () => {
    await rm(checkout, { recursive: true, force: true });
  });

  test('a checkout without dist/ builds it at the first start, with source maps', async () => {
    // `npm run migrate -- <nothing>` goes through the same launcher as npm start and stops at its usage line.
    const r = await run(checkout, ['migrate']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /dist\/ is missing or older than the sources; building it first/);
    assert.match(r.stderr, /usage: npm run migrate -- up\|down\|status/);
    // The command entries are bundles whose maps name every source they hold; other modules keep their own.
    const map = JSON.parse(await readFile(path.join(checkout, 'dist/src/migrate-cli.js.map'), 'utf8'));
    assert.ok(map.sources.includes('../../src/migrate-cli.ts') && map.sources.includes('../../src/storage/postgres/database.ts'), map.sources.slice(0, 5).join(', '));
    const own = JSON.parse(await readFile(path.join(checkout, 'dist/src/storage/postgres/database.js.map'), 'utf8'));
    assert.deepEqual(own.sources, ['../../../../src/storage/postgres/database.ts']);
    // A bundle carries what it imports: it loads no compiled module of the project at run time.
    assert.doesNotMatch(await readFile(path.join(checkout, 'dist/src/main.js'), 'utf8'), /from ["']\.\.?\//);
    // JSON the server reads at run time is copied beside the compiled code.
    assert.ok(existsSync(path.join(checkout, 'dist/src/schema/generated/messages.json')));
    assert.ok(existsSync(path.join(checkout, 'dist/proto/openapiv2.json')));
  });

  test('an unchanged checkout starts without building', async () => {
    const r = await run(checkout, ['migrate']);
    assert.equal(r.code, 2);
    assert.doesNotMatch(r.stderr, /building/);
  });

  test('a changed source file is rebuilt at the next start', async () => {
    await appendFile(path.join(checkout, 'src/migrate-cli.ts'), '\nexport const rebuiltMarker = 1;\n');
    const r = await run(checkout, ['migrate']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /building it first/);
    assert.match(await readFile(path.join(checkout, 'dist/src/migrate-cli.js'), 'utf8'), /rebuiltMarker/);
  });

  test('a build that fails keeps the previous dist/ and says so, naming the file and line', async () => {
    await appendFile(path.join(checkout, 'src/migrate-cli.ts'), '\nconst broken = ;\n');
    const r = await run(checkout, ['build']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /src\/migrate-cli\.ts:\d+:\d+: Unexpected ";"/);
    assert.match(r.stderr, /build: compiling failed; dist\/ is unchanged/);
    assert.match(await readFile(path.join(checkout, 'dist/src/migrate-cli.js'), 'utf8'), /rebuiltMarker/);
  });

  test('a type error does not stop a build (types are checked by npm run typecheck, not at start)', async () => {
    await rm(path.join(checkout, 'src/migrate-cli.ts'));
    await cp(path.join(ROOT, 'src/migrate-cli.ts'), path.join(checkout, 'src/migrate-cli.ts'));
    await appendFile(path.join(checkout, 'src/migrate-cli.ts'), '\nexport const typeError: number = "text" as unknown as string;\n');
    const r = await run(checkout, ['build']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(await readFile(path.join(checkout, 'dist/src/migrate-cli.js'), 'utf8'), /typeError/);
  });
});
