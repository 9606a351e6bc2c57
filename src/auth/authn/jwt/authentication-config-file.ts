/**
 * --authentication-config: the file's JWT authenticators as one token source and its anonymous
 * settings, read at start (every problem a start error) and again when the file changes. As upstream:
 * a new file replaces the authenticators only once it validates and all its issuers are discovered; a
 * file that does not validate is logged and kept out until the file changes again; a file that
 * cannot be read, or whose issuers are not reachable in time, is tried again on the next check. The
 * anonymous settings cannot change without a restart. Logs name the file and the problem, never a
 * token or a claim.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { fieldErrorText, type FieldError } from '../../../api/errors.ts';
import { aggregateText } from '../../../api/selectors/label-validation.ts';
import { StartupError } from '../../../startup-error.ts';
import type { AnonymousAccess } from '../authenticate.ts';
import type { TokenVerifier } from '../bearer-token-authenticator.ts';
import { decodeAuthenticationConfig, type AnonymousSpec, type AuthenticationConfigSpec } from './authentication-config.ts';
import { validateAuthenticationConfig } from './authentication-config-validation.ts';
import { oneAtATime, watchFile } from '../../file-watch.ts';
import { ALL_SIGNING_ALGS } from './jwt-authenticator.ts';
import { JwtAuthenticators } from './jwt-authenticators.ts';

/** How long a reloaded configuration may take to discover its issuers (upstream's UpdateAuthenticationConfigTimeout). */
const READY_TIMEOUT_MS = 60_000;
const RELOAD_INTERVAL_MS = 60_000;
/** Requests that began with the previous authenticators may still use them for a while. */
const RETIRE_AFTER_MS = 60_000;

export interface AuthenticationConfigFileOptions {
  readonly file: string;
  readonly apiAudiences: readonly string[];
  /** Issuers a JWT authenticator may not claim (the service account issuers). */
  readonly serviceAccountIssuers: readonly string[];
  /** Whether --anonymous-auth was given explicitly (it then excludes the file's `anonymous`). */
  readonly anonymousFlagGiven: boolean;
  readonly logger: Logger;
  readonly intervalMs?: number;
  readonly readyTimeoutMs?: number;
}

function aggregate(errors: readonly FieldError[]): string {
  return aggregateText(errors.map((e) => `${e.field}: ${fieldErrorText(e)}`));
}

/** The request path's anonymous rule for the file's `anonymous` section. */
export function anonymousAccess(spec: AnonymousSpec): AnonymousAccess {
  if (!spec.enabled) return false;
  return spec.conditions.length === 0 ? true : { paths: new Set(spec.conditions.map((c) => c.path)) };
}

export class AuthenticationConfigFile {
  /** Delegates to the authenticators of the file as last loaded. */
  readonly verifier: TokenVerifier;
  /** The file's `anonymous` section at start; undefined when it has none (--anonymous-auth decides). */
  readonly anonymous: AnonymousSpec | undefined;
  readonly #opts: AuthenticationConfigFileOptions;
  #current: JwtAuthenticators;
  /** The text last acted on (loaded, or refused for good); an unchanged file is not read twice. */
  #tracked: string;
  #stopped = false;
  #stopWatching: (() => void) | undefined;

  private constructor(opts: AuthenticationConfigFileOptions, text: string, spec: AuthenticationConfigSpec) {
    this.#opts = opts;
    this.#tracked = text;
    this.anonymous = spec.anonymous;
    this.#current = this.#build(spec);
    this.verifier = { name: 'authentication-config', verify: (token, audiences) => this.#current.verifier.verify(token, audiences) };
  }

  /** Reads and validates the file; throws a StartupError with upstream's words when it is not usable. */
  static load(opts: AuthenticationConfigFileOptions): AuthenticationConfigFile {
    const failed = (why: string) => new StartupError(`failed to load authentication configuration from file "${opts.file}": ${why}`);
    let text: string;
    try {
      text = readFileSync(opts.file, 'utf8');
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw failed(e.code === 'ENOENT' ? `open ${opts.file}: no such file or directory` : e.message);
    }
    let spec: AuthenticationConfigSpec;
    try {
      spec = decodeAuthenticationConfig(text);
    } catch (err) {
      throw failed((err as Error).message);
    }
    if (spec.anonymous && opts.anonymousFlagGiven) {
      throw new StartupError('anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
    }
    const errors = validateAuthenticationConfig(spec, opts.serviceAccountIssuers);
    if (errors.length > 0) throw new StartupError(`invalid authentication configuration: ${aggregate(errors)}`);
    return new AuthenticationConfigFile(opts, text, spec);
  }

  /** Starts discovery and watching the file; returns the function that stops both. */
  start(): () => void {
    this.#current.start();
    this.#stopWatching = watchFile({
      file: this.#opts.file,
      intervalMs: this.#opts.intervalMs ?? RELOAD_INTERVAL_MS,
      logger: this.#opts.logger,
      onChange: () => void this.reload(),
    });
    return () => {
      this.#stopped = true;
      this.#stopWatching?.();
      this.#current.close();
    };
  }

  /** Reads the file again and acts on a change; one reload at a time, a change seen meanwhile after it. */
  readonly reload: () => Promise<void> = oneAtATime(() => this.#reload());

  #build(spec: AuthenticationConfigSpec): JwtAuthenticators {
    return new JwtAuthenticators(spec.jwt, { signingAlgs: ALL_SIGNING_ALGS, apiAudiences: this.#opts.apiAudiences, logger: this.#opts.logger });
  }

  async #reload(): Promise<void> {
    const { file, logger } = this.#opts;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      // It may come back (a ConfigMap volume swapping its files): tried again on the next check.
      logger.error({ file, err: (err as Error).message }, 'failed to read authentication config file; keeping the previous configuration');
      return;
    }
    if (text === this.#tracked) return;
    let spec: AuthenticationConfigSpec;
    try {
      spec = decodeAuthenticationConfig(text);
    } catch (err) {
      this.#tracked = text;
      logger.error({ file, err: (err as Error).message }, 'failed to load authentication config; keeping the previous configuration');
      return;
    }
    const errors = validateAuthenticationConfig(spec, this.#opts.serviceAccountIssuers);
    if (JSON.stringify(spec.anonymous ?? null) !== JSON.stringify(this.anonymous ?? null)) {
      errors.push({ type: 'FieldValueForbidden', field: 'anonymous', detail: 'changed from initial configuration file' });
    }
    if (errors.length > 0) {
      this.#tracked = text;
      logger.error({ file, err: aggregate(errors) }, 'failed to validate authentication config; keeping the previous configuration');
      return;
    }
    const next = this.#build(spec);
    next.start();
    try {
      await next.ready(this.#opts.readyTimeoutMs ?? READY_TIMEOUT_MS);
    } catch (err) {
      next.close();
      logger.error({ file, err: (err as Error).message }, 'failed to update authentication config; keeping the previous configuration');
      return;
    }
    if (this.#stopped) return next.close();
    const previous = this.#current;
    this.#current = next;
    this.#tracked = text;
    setTimeout(() => previous.close(), RETIRE_AFTER_MS).unref();
    logger.info({ file, issuers: spec.jwt.map((a) => a.issuer.url) }, 'reloaded authentication config');
  }
}
