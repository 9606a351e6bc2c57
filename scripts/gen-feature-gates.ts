import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Writes src/features/gates-1.34.ts: every feature gate kube-apiserver 1.34 knows, with its
 * stage, default and lock at 1.34.
 *
 *   npx tsx scripts/gen-feature-gates.ts <dir of upstream Go files> [--check]
 *
 * The directory holds upstream's gate tables as they are in the Go sources (kept out of this
 * repository): the staging packages' kube_features.go at their v0.34.0 tags (apiserver,
 * apiextensions-apiserver, controller-manager, component-base's logs, metrics and zpages,
 * client-go's known_features.go) and pkg/features/kube_features.go. Each file holds a map of
 * gate → versioned specs (or client-go's unversioned specs); a gate's state at 1.34 is its last spec
 * whose version is not above 1.34, as upstream's feature gate computes it for its binary version.
 *
 * Files are read in name order and a gate named twice keeps its first table: name the exact
 * staging copies so that they sort before pkg/features' relisting of them.
 *
 * `--check` compares the output with the committed file instead of writing it.
 */

const TARGET = [1, 34] as const;

/**
 * Gates that a newer kube_features.go lists with a "1.0" entry although 1.34 did not have them:
 * upstream gives a gate introduced as deprecated (or as a mitigation) a 1.0 entry for its initial
 * state, so the versions alone cannot tell that 1.34 lacked it.
 */
const NOT_IN_134 = new Set(['ChangeContainerStatusOnKubeletRestart', 'StatefulSetSemanticRevisionComparison']);

type Stage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';
interface Spec {
  version: [number, number];
  default: boolean;
  stage: Stage;
  lockToDefault: boolean;
}

const STAGES: Record<string, Stage> = { Alpha: 'ALPHA', Beta: 'BETA', GA: 'GA', Deprecated: 'DEPRECATED' };

/** `Ident featuregate.Feature = "Name"` declarations: identifiers that name a gate differently. */
function constNames(source: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of source.matchAll(/^\s*([A-Za-z0-9_]+)\s+(?:featuregate\.)?Feature\s*=\s*"([^"]+)"/gm)) names.set(m[1]!, m[2]!);
  for (const m of source.matchAll(/^\s*([A-Za-z0-9_]+)\s*=\s*featuregate\.Feature\("([^"]+)"\)/gm)) names.set(m[1]!, m[2]!);
  return names;
}

function parseSpec(text: string): Spec | undefined {
  const def = /Default:\s*(true|false)/.exec(text);
  const stage = /PreRelease:\s*(?:featuregate\.)?(Alpha|Beta|GA|Deprecated|PreAlpha)\b/.exec(text);
  if (!def || !stage) return undefined;
  if (stage[1] === 'PreAlpha') return undefined;
  const ver = /Version:\s*version\.(?:MustParse\("(\d+)\.(\d+)"\)|MajorMinor\((\d+),\s*(\d+)\))/.exec(text);
  // An unversioned spec (client-go's) holds at every version.
  const version: [number, number] = ver ? [Number(ver[1] ?? ver[3]), Number(ver[2] ?? ver[4])] : [0, 0];
  return { version, default: def[1] === 'true', stage: STAGES[stage[1]!]!, lockToDefault: /LockToDefault:\s*true/.test(text) };
}

/** Every `Gate: { {spec}, … }` (versioned) or `Gate: {spec}` (unversioned) entry of a file. */
function parseFile(source: string): Map<string, Spec[]> {
  const names = constNames(source);
  const code = source.replace(/\/\/[^\n]*/g, '');
  const gates = new Map<string, Spec[]>();
  const entry = /^\s*(?:[a-z]+features\.)?([A-Z][A-Za-z0-9_]*):\s*\{/gm;
  for (const m of code.matchAll(entry)) {
    // The entry's body: up to the brace that closes the one the match ends with.
    let depth = 1;
    let i = m.index! + m[0].length;
    const start = i;
    for (; i < code.length && depth > 0; i++) {
      if (code[i] === '{') depth++;
      else if (code[i] === '}') depth--;
    }
    const body = code.slice(start, i - 1);
    const inner = [...body.matchAll(/\{([^{}]*)\}/g)].map((x) => x[1]!);
    const specs = (inner.length > 0 ? inner : [body]).map(parseSpec).filter((s): s is Spec => s !== undefined);
    if (specs.length === 0) continue;
    gates.set(names.get(m[1]!) ?? m[1]!, specs);
  }
  return gates;
}

function atTarget(specs: readonly Spec[]): Spec | undefined {
  let found: Spec | undefined;
  for (const s of specs) {
    const [maj, min] = s.version;
    if (maj < TARGET[0] || (maj === TARGET[0] && min <= TARGET[1])) found = s;
  }
  return found;
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: tsx scripts/gen-feature-gates.ts <dir of upstream Go files> [--check]');
const all = new Map<string, Spec[]>();
for (const file of readdirSync(dir).filter((f) => f.endsWith('.go')).sort()) {
  for (const [name, specs] of parseFile(readFileSync(path.join(dir, file), 'utf8'))) if (!all.has(name)) all.set(name, specs);
}

const rows: string[] = [];
for (const name of [...all.keys()].sort()) {
  if (NOT_IN_134.has(name) || name === 'AllAlpha' || name === 'AllBeta') continue;
  const spec = atTarget(all.get(name)!);
  if (!spec) continue;
  const lock = spec.lockToDefault ? ', lockToDefault: true' : '';
  rows.push(`  ['${name}', { default: ${spec.default}, stage: '${spec.stage}'${lock} }],`);
}

const out = `// Generated by scripts/gen-feature-gates.ts from upstream's gate tables; do not edit by hand.
import type { GateSpec } from './gate-spec.ts';

/** Every feature gate of kube-apiserver 1.34: its stage, default and lock at that version. */
export const GATES_1_34: ReadonlyMap<string, GateSpec> = new Map<string, GateSpec>([
${rows.join('\n')}
]);
`;
const target = 'src/features/gates-1.34.ts';
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== out) throw new Error(`${target} differs from what the Go files give`);
  process.stdout.write(`${target} is up to date (${rows.length} gates)\n`);
} else {
  writeFileSync(target, out);
  process.stdout.write(`wrote ${target} (${rows.length} gates)\n`);
}
