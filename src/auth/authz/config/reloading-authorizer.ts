/**
 * The authorizer --authorization-config puts in the chain: it delegates to the authorizers the file
 * describes now. The file is read again when it changes (fs.watch on its directory, so editors that
 * replace the file are seen) and otherwise every minute; a file that no longer validates is logged
 * and the previous authorizers stay.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Attributes, AuthorizationResult, Authorizer } from '../authorizer.ts';
import { runChain, unionRulesFor } from '../chain.ts';
import type { SubjectRules } from '../rules.ts';
import type { UserInfo } from '../../user.ts';
import { oneAtATime, watchFile } from '../../file-watch.ts';
import { parseAuthorizationConfig } from './authorization-config.ts';
import { buildAuthorizers, memoizeFactories, type AuthorizerFactories, type BuiltAuthorizers } from './build-authorizers.ts';

const RELOAD_INTERVAL_MS = 60_000;

export interface ReloadingAuthorizerOptions {
  readonly file: string;
  readonly factories: AuthorizerFactories;
  readonly logger: Logger;
  readonly intervalMs?: number;
}

export class ReloadingAuthorizer implements Authorizer {
  readonly name = 'authorization-config';
  readonly #options: ReloadingAuthorizerOptions;
  #current: BuiltAuthorizers;
  #text: string;
  #stopWatching: (() => void) | undefined;

  private constructor(options: ReloadingAuthorizerOptions, text: string, current: BuiltAuthorizers) {
    this.#options = options;
    this.#text = text;
    this.#current = current;
  }

  /** Reads the file once; rejects (a start error) when it is missing or invalid. */
  static async create(options: ReloadingAuthorizerOptions): Promise<ReloadingAuthorizer> {
    const memoized = { ...options, factories: memoizeFactories(options.factories) };
    let text: string;
    try {
      text = readFileSync(options.file, 'utf8');
    } catch (err) {
      throw new Error(`failed to read authorization config file "${options.file}": ${(err as Error).message}`);
    }
    return new ReloadingAuthorizer(memoized, text, await buildAuthorizers(parseAuthorizationConfig(text), memoized.factories, options.logger));
  }

  authorize(attrs: Attributes): Promise<AuthorizationResult> {
    return runChain(this.#current.authorizers, attrs);
  }

  rulesFor(user: UserInfo, namespace: string): Promise<SubjectRules> {
    return unionRulesFor(this.#current.authorizers, user, namespace);
  }

  /** Starts watching the file; returns the function that stops it. */
  start(): () => void {
    this.#stopWatching = watchFile({
      file: this.#options.file,
      intervalMs: this.#options.intervalMs ?? RELOAD_INTERVAL_MS,
      logger: this.#options.logger,
      onChange: () => void this.reload(),
    });
    return () => this.stop();
  }

  stop(): void {
    this.#stopWatching?.();
    this.#current.close();
  }

  /** Reads the file again; an unchanged text keeps the authorizers (and their caches). One at a time. */
  readonly reload: () => Promise<void> = oneAtATime(() => this.#reload());

  async #reload(): Promise<void> {
    const { file, logger, factories } = this.#options;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      logger.error({ file, err: (err as Error).message }, 'error reading the authorization config; keeping the previous authorizers');
      return;
    }
    if (text === this.#text) return;
    let next: BuiltAuthorizers;
    try {
      next = await buildAuthorizers(parseAuthorizationConfig(text), factories, logger);
    } catch (err) {
      // The messages name fields and files, never the kubeconfig's credentials.
      logger.error({ file, err: (err as Error).message }, 'error reloading the authorization config; keeping the previous authorizers');
      return;
    }
    const previous = this.#current;
    this.#current = next;
    this.#text = text;
    // Requests already running hold their authorizer; close its sockets a little later.
    setTimeout(() => previous.close(), 30_000).unref();
    logger.info({ file }, 'reloaded the authorization config');
  }
}
