/**
 * The human-readable form of paths (upstream Path.String and value.ToString), which kube-apiserver
 * puts in apply conflict messages and their causes' `field`, e.g.
 * `.spec.containers[name="nginx"].image`, `.metadata.finalizers[="a"]`, `.spec.ports[port=80,protocol="TCP"]`.
 */
import { goNumber } from '../../api/go/number.ts';
import { goQuote } from '../../api/go/quote.ts';
import { compareGoStrings } from '../../api/go/strings.ts';
import type { JsonValue, Path, PathElement } from './path-element.ts';

/**
 * Upstream value.ToString. Numbers print as Go prints the int64 or float64 kube-apiserver would hold
 * (an integral number as an int); maps print as `k=v` pairs run together, in key order here where Go
 * uses its random map order.
 */
export function valueToString(v: JsonValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      return goNumber(v);
    case 'string':
      return goQuote(v);
    case 'boolean':
      return String(v);
  }
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  return Object.keys(v)
    .sort(compareGoStrings)
    .map((k) => `${k}=${valueToString(v[k]!)}`)
    .join('');
}

export function pathElementString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([name, v]) => `${name}=${valueToString(v)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

export function pathString(path: Path): string {
  let out = '';
  for (const pe of path) out += pathElementString(pe);
  return out;
}
