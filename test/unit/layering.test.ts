import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.join(import.meta.dirname, '../../src');

/** Every .ts file under a directory of src, with the src-relative paths it imports. */
function importsUnder(dir: string): { file: string; targets: string[] }[] {
  const out: { file: string; targets: string[] }[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const full = path.join(d, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith('.ts')) {
        const text = readFileSync(full, 'utf8');
        const targets = [...text.matchAll(/^(?:import|export)[^'";]*?from '(\.[^']+)'/gms)].map((m) => path.relative(SRC, path.resolve(path.dirname(full), m[1])));
        out.push({ file: path.relative(SRC, full), targets });
      }
    }
  };
  walk(path.join(SRC, dir));
  return out;
}

/** The layers a layer may not reach (directly); the layering docs/architecture.md describes. */
const FORBIDDEN: Record<string, string[]> = {
  // HTTP talks to the registry; it never sees storage (nor its errors).
  http: ['storage/', 'kinds/'],
  // Storage knows nothing of the API machinery above it.
  storage: ['registry/', 'http/', 'admission/', 'kinds/', 'controllers/'],
  // The generic store never names a kind and knows nothing of HTTP.
  registry: ['http/', 'kinds/', 'controllers/'],
  // Wire types and their parsers are used by every layer and use none of them.
  api: ['registry/', 'http/', 'storage/', 'kinds/', 'admission/', 'controllers/'],
  // Kinds are data and hooks over the registry's types.
  kinds: ['http/', 'storage/', 'controllers/'],
  admission: ['http/', 'controllers/'],
};

for (const [layer, forbidden] of Object.entries(FORBIDDEN)) {
  test(`src/${layer} does not import ${forbidden.join(', ')}`, () => {
    const violations = importsUnder(layer).flatMap(({ file, targets }) =>
      targets.filter((t) => forbidden.some((f) => t.startsWith(f))).map((t) => `${file} → ${t}`),
    );
    assert.deepEqual(violations, []);
  });
}
