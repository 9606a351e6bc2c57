/**
 * The authorizer --authorization-config puts in the chain: it delegates to the authorizers the file
 * describes now. The file is read again when it changes (fs.watch on its directory, so editors that
 * replace the file are seen) and otherwise every minute; a file that no longer validates is logged
 * and the previous authorizers stay.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Attributes, AuthorizationResult, Authorizer } from '../authorizer.ts';
import { runChain } from '../chain.ts';
import { parseAuthorizationConfig } from './authorization-config.ts';
import { buildAuthorizers, memoizeFactories, type AuthorizerFactories, type BuiltAuthorizers } from './build-authorizers.ts';

const RELOAD_INTERVAL_MS = 60_000;
/** Several events arrive for one save; wait for them to settle before reading. */
const WATCH_DEBOUNCE_MS = 100;

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
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #debounce: NodeJS.Timeout | undefined;

  #reloading = false;
  #again = false;

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

  /** Starts watching the file; returns the function that stops it. */
  start(): () => void {
    const dir = path.dirname(this.#options.file);
    const base = path.basename(this.#options.file);
    try {
      this.#watcher = watch(dir, (_event, name) => {
        if (name !== null && name !== base) return;
        clearTimeout(this.#debounce);
        this.#debounce = setTimeout(() => void this.reload(), WATCH_DEBOUNCE_MS);
      });
      this.#watcher.on('error', () => undefined);
    } catch (err) {
      this.#options.logger.warn({ err: (err as Error).message }, 'cannot watch the authorization config; reloading it every minute only');
    }
    this.#timer = setInterval(() => void this.reload(), this.#options.intervalMs ?? RELOAD_INTERVAL_MS);
    this.#timer.unref();
    return () => this.stop();
  }

  stop(): void {
    this.#watcher?.close();
    clearInterval(this.#timer);
    clearTimeout(this.#debounce);
    this.#current.close();
  }

  /** Reads the file again; an unchanged text keeps the authorizers (and their caches). */
  async reload(): Promise<void> {
    // One reload at a time; a change seen meanwhile is read when the running one ends.
    if (this.#reloading) {
      this.#again = true;
      return;
    }
    this.#reloading = true;
    try {
      do {
        this.#again = false;
        await this.#reload();
      } while (this.#again);
    } finally {
      this.#reloading = false;
    }
  }

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
