/**
 * The webhook configurations a plugin calls, kept in memory from a watch (an Informer over the
 * configuration kind's store), as upstream's configuration managers keep them: every webhook of
 * every configuration, configurations in name order and webhooks in their order within one. Each
 * webhook is an accessor that parses its selectors and compiles its match conditions once, and is
 * rebuilt only when its configuration changes.
 */
import type { Logger } from 'pino';
import type { StoredKubeObject } from '../../api/types.ts';
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../../api/selectors/label-selector.ts';
import { defaultWebhook, webhooksOf, type WebhookValue } from '../../kinds/webhook-configuration-rules.ts';
import { Informer } from '../../registry/informer.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import { ResourceStore } from '../../registry/resource-store.ts';
import type { Storage } from '../../storage/storage.ts';
import { NO_ADMISSION } from '../chain.ts';
import { cloneJson } from '../../api/types.ts';
import { compileConditions, type CompiledConditions } from './cel.ts';

/** A parsed selector, or why it could not be parsed. */
export type ParsedSelector = { readonly selector: LabelSelector } | { readonly error: string };

/** One webhook as the dispatchers read it. */
export class WebhookAccessor {
  /** `<configuration>/<webhook>/<n>`: unique even where names repeat (stored before names were checked). */
  readonly uid: string;
  readonly configurationName: string;
  /** The webhook with the v1 defaults filled in. */
  readonly hook: WebhookValue;
  #namespaceSelector?: ParsedSelector;
  #objectSelector?: ParsedSelector;
  #conditions?: CompiledConditions;

  constructor(uid: string, configurationName: string, hook: WebhookValue) {
    this.uid = uid;
    this.configurationName = configurationName;
    this.hook = hook;
  }

  get name(): string {
    return this.hook.name ?? '';
  }

  namespaceSelector(): ParsedSelector {
    return (this.#namespaceSelector ??= parse(this.hook.namespaceSelector));
  }

  objectSelector(): ParsedSelector {
    return (this.#objectSelector ??= parse(this.hook.objectSelector));
  }

  /** The compiled match conditions (undefined when there are none). */
  conditions(): CompiledConditions | undefined {
    const list = this.hook.matchConditions ?? [];
    if (list.length === 0) return undefined;
    return (this.#conditions ??= compileConditions(list.map((c) => ({ name: c?.name ?? '', expression: c?.expression ?? '' }))));
  }
}

function parse(selector: WebhookValue['namespaceSelector']): ParsedSelector {
  try {
    // A missing selector matches everything, as the v1 default `{}` does.
    return { selector: labelSelectorFromObject((selector ?? {}) as LabelSelectorObject) ?? [] };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** The accessors of one stored configuration. */
function accessorsOf(config: StoredKubeObject, mutating: boolean): WebhookAccessor[] {
  const name = config.metadata.name;
  const seen = new Map<string, number>();
  return webhooksOf(config).map((raw) => {
    const hook = cloneJson(raw ?? {});
    defaultWebhook(hook, mutating);
    const n = seen.get(hook.name ?? '') ?? 0;
    seen.set(hook.name ?? '', n + 1);
    return new WebhookAccessor(`${name}/${hook.name ?? ''}/${n}`, name, hook);
  });
}

export class WebhookSource {
  readonly #informer: Informer;
  readonly #mutating: boolean;
  readonly #cache = new Map<string, { version: string; accessors: WebhookAccessor[] }>();
  #list: readonly WebhookAccessor[] | undefined = [];

  constructor(kind: KindDefinition, storage: Storage, logger: Logger, mutating: boolean) {
    this.#mutating = mutating;
    this.#informer = new Informer(new ResourceStore(kind, storage, NO_ADMISSION), { logger });
    const changed = () => (this.#list = undefined);
    this.#informer.on({ added: changed, updated: changed, deleted: changed });
  }

  /** Lists and starts watching; resolves once the first list is in. */
  start(): Promise<void> {
    return this.#informer.start();
  }

  stop(): void {
    this.#informer.stop();
  }

  hasSynced(): boolean {
    return this.#informer.hasSynced();
  }

  /** Every webhook, configurations in name order. */
  webhooks(): readonly WebhookAccessor[] {
    if (this.#list) return this.#list;
    const configs = this.#informer.list().sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    const live = new Set<string>();
    const list: WebhookAccessor[] = [];
    for (const config of configs) {
      const name = config.metadata.name;
      live.add(name);
      let cached = this.#cache.get(name);
      if (!cached || cached.version !== config.metadata.resourceVersion) {
        cached = { version: config.metadata.resourceVersion, accessors: accessorsOf(config, this.#mutating) };
        this.#cache.set(name, cached);
      }
      list.push(...cached.accessors);
    }
    for (const name of this.#cache.keys()) if (!live.has(name)) this.#cache.delete(name);
    this.#list = list;
    return list;
  }
}
