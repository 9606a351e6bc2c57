/**
 * The policies in force, kept in memory as upstream's policy source keeps them: informers on
 * ValidatingAdmissionPolicies and their bindings, each policy compiled once per resourceVersion,
 * and the informers of the param kinds the policies name. Any event marks the view stale; the next
 * request rebuilds it (without a query), so a change is in force as soon as its watch event is in.
 */
import type { Logger } from 'pino';
import type { StoredKubeObject } from '../../api/types.ts';
import { Informer } from '../../registry/informer.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import { ResourceStore } from '../../registry/resource-store.ts';
import type { Storage } from '../../storage/storage.ts';
import { NO_ADMISSION } from '../chain.ts';
import { ParamSource, parseGroupVersion, type ParamKind } from './params.ts';
import { CompiledPolicy } from './validator.ts';

export const GROUP = 'admissionregistration.k8s.io';
export const POLICIES = 'validatingadmissionpolicies';
export const BINDINGS = 'validatingadmissionpolicybindings';

export type Policy = StoredKubeObject & { spec?: { paramKind?: ParamKind | null; matchConstraints?: unknown; failurePolicy?: string } };
export type Binding = StoredKubeObject & { spec?: { policyName?: string; paramRef?: unknown; matchResources?: unknown; validationActions?: string[] } };

/** A policy with its bindings, as the dispatcher runs it (upstream's PolicyHook). */
export interface PolicyHook {
  readonly policy: Policy;
  readonly bindings: readonly Binding[];
  readonly compiled: CompiledPolicy;
  /** The informer of the param kind (absent when the policy takes no params or its kind is unknown). */
  readonly params?: ParamSource;
  /** Why the policy cannot be used (an unknown param kind), as upstream words it. */
  readonly configurationError?: string;
}

export interface PolicySourceOptions {
  readonly storage: Storage;
  readonly kinds: readonly KindDefinition[];
  /** The kinds served now, where a paramKind is looked for (a custom resource kind served later is found). */
  readonly servedKinds?: () => readonly KindDefinition[];
  readonly logger: Logger;
}

const byName = (a: StoredKubeObject, b: StoredKubeObject) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);

export class PolicySource {
  readonly #options: PolicySourceOptions;
  readonly #policies?: Informer;
  readonly #bindings?: Informer;
  readonly #compiled = new Map<string, { resourceVersion: string; compiled: CompiledPolicy }>();
  readonly #params = new Map<string, ParamSource>();
  #hooks: PolicyHook[] = [];
  #dirty = true;
  #stopped = false;

  constructor(options: PolicySourceOptions) {
    this.#options = options;
    const policyKind = options.kinds.find((k) => k.group === GROUP && k.plural === POLICIES);
    const bindingKind = options.kinds.find((k) => k.group === GROUP && k.plural === BINDINGS);
    if (!policyKind || !bindingKind) return;
    const mark = () => {
      this.#dirty = true;
    };
    this.#policies = new Informer(new ResourceStore(policyKind, options.storage, NO_ADMISSION), { logger: options.logger });
    this.#bindings = new Informer(new ResourceStore(bindingKind, options.storage, NO_ADMISSION), { logger: options.logger });
    for (const informer of [this.#policies, this.#bindings]) informer.on({ added: mark, updated: mark, deleted: mark });
  }

  /** Lists and watches policies and bindings; resolves once both are in. */
  async start(): Promise<void> {
    await Promise.all([this.#policies?.start(), this.#bindings?.start()]);
    this.#dirty = true;
  }

  stop(): void {
    this.#stopped = true;
    this.#policies?.stop();
    this.#bindings?.stop();
    for (const p of this.#params.values()) p.stop();
    this.#params.clear();
  }

  /** The policies that have bindings, by name, each with its bindings by name. */
  hooks(): readonly PolicyHook[] {
    if (this.#dirty) {
      this.#dirty = false;
      this.#hooks = this.#build();
    }
    return this.#hooks;
  }

  #build(): PolicyHook[] {
    if (!this.#policies || !this.#bindings) return [];
    const bindingsOf = new Map<string, Binding[]>();
    for (const b of this.#bindings.list() as Binding[]) {
      const name = b.spec?.policyName ?? '';
      let list = bindingsOf.get(name);
      if (!list) bindingsOf.set(name, (list = []));
      list.push(b);
    }
    const hooks: PolicyHook[] = [];
    const usedParams = new Set<string>();
    for (const [name, bindings] of bindingsOf) {
      // A binding whose policy is missing does nothing until the policy comes.
      const policy = this.#policies.get('', name) as Policy | undefined;
      if (!policy) continue;
      const paramKind = policy.spec?.paramKind;
      let params: ParamSource | undefined;
      let configurationError: string | undefined;
      if (paramKind) {
        const gv = parseGroupVersion(paramKind.apiVersion ?? '');
        if (!gv) {
          this.#options.logger.warn({ policy: name }, 'paramKind apiVersion does not parse; the policy is not in force');
          continue;
        }
        const key = `${gv.group}/${gv.version}, Kind=${paramKind.kind ?? ''}`;
        usedParams.add(key);
        params = this.#paramSource(key, gv.group, gv.version, paramKind.kind ?? '');
        if (!params) configurationError = `failed to find resource referenced by paramKind: '${key}'`;
      }
      hooks.push({ policy, bindings: bindings.sort(byName), compiled: this.#compile(policy), ...(params ? { params } : {}), ...(configurationError ? { configurationError } : {}) });
    }
    for (const [key, source] of this.#params) {
      if (usedParams.has(key)) continue;
      source.stop();
      this.#params.delete(key);
    }
    for (const name of this.#compiled.keys()) if (!bindingsOf.has(name)) this.#compiled.delete(name);
    return hooks.sort((a, b) => byName(a.policy, b.policy));
  }

  #paramSource(key: string, group: string, version: string, kind: string): ParamSource | undefined {
    const known = this.#params.get(key);
    if (known || this.#stopped) return known;
    const served = this.#options.servedKinds?.() ?? this.#options.kinds;
    const def = served.find((k) => k.group === group && k.version === version && k.kind === kind && !k.respond && !k.computed);
    if (!def) return undefined;
    const source = new ParamSource(def, this.#options.storage, this.#options.logger);
    this.#params.set(key, source);
    return source;
  }

  #compile(policy: Policy): CompiledPolicy {
    const name = policy.metadata.name;
    const known = this.#compiled.get(name);
    if (known && known.resourceVersion === policy.metadata.resourceVersion) return known.compiled;
    const compiled = new CompiledPolicy((policy.spec ?? {}) as ConstructorParameters<typeof CompiledPolicy>[0]);
    this.#compiled.set(name, { resourceVersion: policy.metadata.resourceVersion, compiled });
    return compiled;
  }
}
