import { compareGoStrings } from '../../api/go/strings.ts';

/**
 * The keyset order of the store: (namespace, name) compared as PostgreSQL's "C" collation compares
 * them, byte by byte in UTF-8 (etcd's order too). JavaScript compares UTF-16 code units, which agrees
 * with UTF-8 byte order except between a surrogate (a code point above U+FFFF) and U+E000–U+FFFF;
 * Go's string order is the UTF-8 one, so the cache pages in exactly the database's order and its
 * continue tokens point where the database's would.
 */
export function compareText(a: string, b: string): number {
  return compareGoStrings(a, b);
}

export function compareKeys(aNamespace: string, aName: string, bNamespace: string, bName: string): number {
  return compareText(aNamespace, bNamespace) || compareText(aName, bName);
}
