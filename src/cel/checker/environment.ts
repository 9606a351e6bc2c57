/**
 * cel-js environments that declare what Kubernetes 1.34's CEL environment declares, for cel-js's
 * parser and type checker (evaluation is this package's own). One base environment per
 * compatibility level holds the libraries; an environment per set of variables is a cheap clone.
 *
 * Compatibility: Kubernetes compiles expressions it stores for the first time against the previous
 * minor version's libraries (DefaultCompatibilityVersion) and expressions already stored against
 * its own. 1.34 added cel-go's lists extension, so `new` lacks slice, flatten, sort, sortBy,
 * lists.range, reverse and distinct; `stored` has them.
 */
import { Environment } from '@marcbachmann/cel-js';
import { ALL_OVERLOADS } from '../lib/index.ts';
import type { Overload } from '../lib/overload.ts';
import { CelAuthorizer, CelDecision, CelGroupCheck, CelPathCheck, CelResourceCheck } from '../lib/authz.ts';
import { CelCidr } from '../lib/cidr.ts';
import { CelIp } from '../lib/ip.ts';
import { CelNamedFormat } from '../lib/named-format.ts';
import { CelQuantity } from '../lib/quantity.ts';
import { CelSemver } from '../lib/semver.ts';
import { CelUrl } from '../lib/urls.ts';
import { TYPES } from '../values.ts';
import { registerMacros } from './macros.ts';
import type { ObjectTypeDecl } from './object-types.ts';

export type Compatibility = 'stored' | 'new';

/** Generous structural limits: cel-go's parser has none on list, map or argument counts. */
const LIMITS = { maxAstNodes: 1e6, maxListElements: 1e6, maxMapEntries: 1e6, maxCallArguments: 1e6, maxDepth: 250 };

const LIBRARY_TYPES: [string, new (...args: never[]) => unknown][] = [
  ['kubernetes.Quantity', CelQuantity],
  ['kubernetes.URL', CelUrl],
  ['net.IP', CelIp],
  ['net.CIDR', CelCidr],
  ['kubernetes.Semver', CelSemver],
  ['kubernetes.NamedFormat', CelNamedFormat],
  ['kubernetes.authorization.PathCheck', CelPathCheck],
  ['kubernetes.authorization.GroupCheck', CelGroupCheck],
  ['kubernetes.authorization.Decision', CelDecision],
];

/** The cel-js receiver type that stands for a function namespace (`sets.contains` is `<ns>.contains`). */
export function namespaceType(ns: string): string {
  return ns === 'optional' ? 'OptionalNamespace' : `k8s.ns.${ns}`;
}

const notEvaluated = () => {
  throw new Error('evaluated by src/cel');
};

function register(env: Environment, o: Overload): void {
  const dot = o.member ? -1 : o.name.lastIndexOf('.');
  const receiverType = o.member ? o.params[0] : dot >= 0 ? namespaceType(o.name.slice(0, dot)) : undefined;
  const params = (o.member ? o.params.slice(1) : o.params).map((type) => ({ type }));
  try {
    env.registerFunction({ name: dot >= 0 ? o.name.slice(dot + 1) : o.name, receiverType, returnType: o.result, params, handler: notEvaluated, async: false } as never);
  } catch (e) {
    // cel-js declares most standard functions itself; an overlapping declaration is one of those.
    if (!/overlaps with existing overload/.test((e as Error).message)) throw e;
  }
}

/**
 * cel-go's checker lets null stand for a value of an object, opaque, timestamp or duration type
 * (isLegacyNullable), so `namespaceObject == null` compiles; cel-js needs the comparison declared.
 */
function declareNullable(env: Environment, t: string): void {
  try {
    env.registerOperator(`${t} == null`, notEvaluated);
  } catch (e) {
    if (!/already registered/.test((e as Error).message)) throw e;
  }
}

const bases = new Map<Compatibility, Environment>();

/** The libraries' environment for a compatibility level (built once). */
function base(compatibility: Compatibility): Environment {
  let env = bases.get(compatibility);
  if (env) return env;
  env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false, limits: LIMITS });
  for (const [name, ctor] of LIBRARY_TYPES) env.registerType(name, ctor as never);
  env.registerType('kubernetes.authorization.ResourceCheck', CelResourceCheck as never);
  env.registerType('kubernetes.authorization.Authorizer', { ctor: CelAuthorizer, fields: { requestResource: 'kubernetes.authorization.ResourceCheck' } } as never);
  env.registerType('k8s.MacroReceiver', class MacroReceiver {} as never);
  const overloads = ALL_OVERLOADS.filter((o) => compatibility === 'stored' || !o.storedOnly);
  const namespaces = new Set(overloads.filter((o) => !o.member && o.name.includes('.')).map((o) => o.name.slice(0, o.name.lastIndexOf('.'))));
  for (const ns of namespaces) {
    if (ns === 'optional') continue;
    // cel-js types a constant by its value, so the value is an instance of the namespace's class.
    const Namespace = class {};
    env.registerType(namespaceType(ns), { ctor: Namespace, fields: {} } as never);
    env.registerConstant(ns, namespaceType(ns), new Namespace());
  }
  // cel-go compares any two values of one type (`_==_(A, A)`); cel-js only its own types.
  for (const t of [...LIBRARY_TYPES.map(([name]) => name), 'kubernetes.authorization.ResourceCheck', 'kubernetes.authorization.Authorizer']) {
    env.registerOperator(`${t} == ${t}`, notEvaluated);
    declareNullable(env, t);
  }
  for (const t of ['google.protobuf.Timestamp', 'google.protobuf.Duration']) declareNullable(env, t);
  env.registerOperator('optional<T> == optional<T>', notEvaluated);
  for (const op of ['<', '<=', '>', '>=']) env.registerOperator(`bytes ${op} bytes`, notEvaluated);
  // Type names usable as values: net.IP and net.CIDR (the IP and CIDR libraries declare them).
  env.registerConstant('net', 'map<string, type>', { IP: TYPES.type, CIDR: TYPES.type });
  for (const o of overloads) register(env, o);
  registerMacros(env, compatibility === 'stored');
  bases.set(compatibility, env);
  return env;
}

export interface Declarations {
  /** Variables and their cel-js types (`dyn`, `kubernetes.AdmissionRequest`, …). */
  readonly variables: Readonly<Record<string, string>>;
  /** Object types the variables use, nested types first. */
  readonly objectTypes?: readonly ObjectTypeDecl[];
  readonly compatibility: Compatibility;
}

const derived = new Map<string, Environment>();
const MAX_DERIVED = 500;

/** The cel-js environment for a set of declarations (cached; clones share the base's registry). */
export function checkerEnvironment(decls: Declarations): Environment {
  const key = JSON.stringify([decls.compatibility, decls.variables, decls.objectTypes ?? []]);
  let env = derived.get(key);
  if (env) return env;
  env = base(decls.compatibility).clone({ enableOptionalTypes: true, homogeneousAggregateLiterals: false, unlistedVariablesAreDyn: false, limits: LIMITS });
  for (const t of decls.objectTypes ?? []) {
    env.registerType(t.name, { fields: t.fields } as never);
    env.registerOperator(`${t.name} == ${t.name}`, notEvaluated);
    declareNullable(env, t.name);
  }
  for (const [name, type] of Object.entries(decls.variables)) env.registerVariable(name, type);
  if (derived.size >= MAX_DERIVED) derived.clear();
  derived.set(key, env);
  return env;
}
