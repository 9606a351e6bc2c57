/**
 * Classification: which FlowSchema a request belongs to. Built whenever the configuration changes
 * (never per request): the schemas sorted as upstream orders them and their rules compiled.
 */
import type { RequestInfo } from '../api/request-info.ts';
import type { UserInfo } from '../auth/user.ts';
import type { FlowSchemaConfig } from './config-objects.ts';
import { CATCH_ALL } from './mandatory-config.ts';
import { compileRules, type RequestMatcher } from './rule-matcher.ts';

export interface ClassifiedSchema {
  readonly schema: FlowSchemaConfig;
  readonly matches: RequestMatcher;
}

/** Upstream's FlowSchemaSequence order: lower matchingPrecedence first, ties by name. */
export function compareSchemas(a: FlowSchemaConfig, b: FlowSchemaConfig): number {
  if (a.matchingPrecedence !== b.matchingPrecedence) return a.matchingPrecedence - b.matchingPrecedence;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export class Classifier {
  readonly #schemas: readonly ClassifiedSchema[];
  readonly #catchAll: ClassifiedSchema | undefined;

  /** `schemas` in matching order (see compareSchemas). */
  constructor(schemas: readonly FlowSchemaConfig[]) {
    this.#schemas = schemas.map((schema) => ({ schema, matches: compileRules(schema.rules) }));
    this.#catchAll = this.#schemas.find((s) => s.schema.name === CATCH_ALL);
  }

  get schemas(): readonly ClassifiedSchema[] {
    return this.#schemas;
  }

  /**
   * The first schema that matches; when none does (the mandatory catch-all matches every
   * authenticated or unauthenticated user, so only a user in neither group gets here) the
   * catch-all schema, as upstream falls back to it.
   */
  classify(user: UserInfo, info: RequestInfo): FlowSchemaConfig {
    for (const s of this.#schemas) if (s.matches(user, info)) return s.schema;
    if (this.#catchAll) return this.#catchAll.schema;
    throw new Error('API priority and fairness: no catch-all FlowSchema to fall back to');
  }
}

/** The flow distinguisher of a request under a schema: its user's name, its namespace, or nothing. */
export function distinguisherOf(schema: FlowSchemaConfig, user: UserInfo, info: RequestInfo): string {
  switch (schema.distinguisher) {
    case 'ByUser':
      return user.name;
    case 'ByNamespace':
      return info.namespace;
    default:
      return '';
  }
}
