/**
 * A string that identifies a path element, for keying JavaScript maps of list items: equal elements
 * (upstream's PathElement.Equals) give equal strings, whatever the key order inside object values.
 */
import type { JsonValue, PathElement } from '../fieldpath/path-element.ts';

function canonical(v: JsonValue): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k]!)}`).join(',')}}`;
}

export function peKey(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f${pe.name}`;
    case 'key': {
      // Written out (rather than map and join): every item of every associative list is keyed on every walk.
      let key = 'k';
      for (let i = 0; i < pe.fields.length; i++) {
        const [n, v] = pe.fields[i]!;
        key += `${i > 0 ? ',' : ''}${JSON.stringify(n)}=${canonical(v)}`;
      }
      return key;
    }
    case 'value':
      return `v${canonical(pe.value)}`;
    case 'index':
      return `i${pe.index}`;
  }
}
