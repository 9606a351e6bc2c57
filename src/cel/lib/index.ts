/**
 * Every function the Kubernetes 1.34 CEL environment declares (beyond operators and macros, which
 * the compiler knows), by cel-go function name.
 */
import { authzOverloads } from './authz.ts';
import { cidrOverloads } from './cidr.ts';
import { ipOverloads } from './ip.ts';
import { listsOverloads } from './lists.ts';
import { namedFormatOverloads } from './named-format.ts';
import { optionalOverloads } from './optional.ts';
import type { Overload } from './overload.ts';
import { quantityOverloads } from './quantity.ts';
import { regexOverloads } from './regex.ts';
import { semverOverloads } from './semver.ts';
import { setsOverloads } from './sets.ts';
import { standardOverloads } from './standard.ts';
import { stringsOverloads } from './strings.ts';
import { urlOverloads } from './urls.ts';

export const ALL_OVERLOADS: readonly Overload[] = [
  ...standardOverloads,
  ...stringsOverloads,
  ...listsOverloads,
  ...setsOverloads,
  ...regexOverloads,
  ...urlOverloads,
  ...quantityOverloads,
  ...ipOverloads,
  ...cidrOverloads,
  ...semverOverloads,
  ...namedFormatOverloads,
  ...authzOverloads,
  ...optionalOverloads,
];

/** Function names that are namespaces before a dot (`sets.contains`): the namespace identifiers. */
export const NAMESPACES: ReadonlySet<string> = new Set(ALL_OVERLOADS.filter((o) => !o.member && o.name.includes('.')).map((o) => o.name.slice(0, o.name.lastIndexOf('.'))));

const byName = new Map<string, Overload[]>();
for (const o of ALL_OVERLOADS) {
  const list = byName.get(o.name);
  if (list) list.push(o);
  else byName.set(o.name, [o]);
}

/** The overloads of a function name (any arity, member or not), in declaration order. */
export function overloadsNamed(name: string): readonly Overload[] {
  return byName.get(name) ?? [];
}
