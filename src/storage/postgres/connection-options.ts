import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import tls from 'node:tls';
import type pg from 'pg';

/**
 * libpq's TLS settings for one connection URL. node-postgres reads sslmode its own way (require
 * means verify-full there), so the ssl parameters are taken out of the URL and turned into TLS
 * options here, with libpq's meaning:
 *
 *   disable      plain only
 *   allow        plain first, TLS if the server refuses plain
 *   prefer       TLS first, plain if the server does not support TLS (the default)
 *   require      TLS; the chain is verified only when a root CA is given (libpq does the same)
 *   verify-ca    TLS, chain verified, host name not checked
 *   verify-full  TLS, chain and host name verified
 *
 * In every TLS mode a given root CA (sslrootcert, or --database-ca-file) is used to verify the
 * chain, as libpq does once a root certificate file is present. `sslrootcert=system` means the
 * system's trusted CAs and implies verify-full (libpq 16). libpq's default files under
 * ~/.postgresql are not read: certificates are named explicitly.
 */
export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

const SSL_MODES: readonly SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
const SUPPORTED_SSL_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslpassword'];

export type Verification = 'none' | 'chain' | 'full';

export interface ConnectionPlan {
  /** Which setting the URL came from (`--database-url`, …), for messages. */
  readonly setting: string;
  /** host:port/database, for messages: never the user or password. */
  readonly target: string;
  readonly host: string;
  readonly sslMode: SslMode;
  readonly verification: Verification;
  /** Where the root CA came from, for messages. */
  readonly caSource: string | undefined;
  /** pg settings without TLS: the URL with its ssl parameters removed. */
  readonly base: pg.ClientConfig;
  /** The TLS options an encrypted connection uses. */
  readonly tls: tls.ConnectionOptions;
}

export class ConnectionSettingsError extends Error {
  override name = 'ConnectionSettingsError';
}

export interface PlanOptions {
  /** Which setting the URL came from, named in errors. */
  readonly setting: string;
  /** --database-ca-file: a root CA for URLs that name none. */
  readonly caFile?: string;
}

/** Reads the URL's ssl parameters (and the CA file) into a plan; no connection is made. */
export async function connectionPlan(url: string, options: PlanOptions): Promise<ConnectionPlan> {
  const { setting } = options;
  const parsed = parseUrl(url, setting);
  const params = parsed.searchParams;
  for (const name of [...params.keys()]) {
    if (name === 'ssl') {
      throw new ConnectionSettingsError(`${setting}: the parameter "ssl" is not supported; use libpq's sslmode=disable|allow|prefer|require|verify-ca|verify-full`);
    }
    if (name.startsWith('ssl') && !SUPPORTED_SSL_PARAMS.includes(name)) {
      throw new ConnectionSettingsError(`${setting}: the parameter "${name}" is not supported (supported: ${SUPPORTED_SSL_PARAMS.join(', ')})`);
    }
  }
  const given = params.get('sslmode');
  if (given !== null && !SSL_MODES.includes(given as SslMode)) {
    throw new ConnectionSettingsError(`${setting}: invalid sslmode "${given}" (one of ${SSL_MODES.join(', ')})`);
  }
  const rootCert = params.get('sslrootcert');
  const system = rootCert === 'system';
  if (system && given !== null && given !== 'verify-full') {
    throw new ConnectionSettingsError(`${setting}: sslmode=${given} may not be used with sslrootcert=system; use sslmode=verify-full (as libpq requires)`);
  }
  const sslMode: SslMode = (given as SslMode | null) ?? (system ? 'verify-full' : 'prefer');

  const tlsOptions: tls.ConnectionOptions = {};
  let caSource: string | undefined;
  if (system) {
    caSource = 'the system CAs';
    const systemCas = systemCertificates();
    if (systemCas) tlsOptions.ca = systemCas;
  } else if (rootCert !== null) {
    caSource = `sslrootcert "${rootCert}"`;
    tlsOptions.ca = certificates(await readSetting(rootCert, 'sslrootcert', setting), caSource, setting);
  } else if (options.caFile) {
    caSource = `--database-ca-file "${options.caFile}"`;
    tlsOptions.ca = certificates(await readSetting(options.caFile, '--database-ca-file', setting), caSource, setting);
  }
  if ((sslMode === 'verify-ca' || sslMode === 'verify-full') && caSource === undefined) {
    throw new ConnectionSettingsError(
      `${setting}: sslmode=${sslMode} needs a root certificate to verify the server: set sslrootcert=<file> in the URL or --database-ca-file, or sslrootcert=system for the system's CAs`,
    );
  }

  const certFile = params.get('sslcert');
  const keyFile = params.get('sslkey');
  if ((certFile === null) !== (keyFile === null)) {
    throw new ConnectionSettingsError(`${setting}: sslcert and sslkey go together (a client certificate needs its key)`);
  }
  if (certFile !== null && keyFile !== null) {
    tlsOptions.cert = await readSetting(certFile, 'sslcert', setting);
    tlsOptions.key = await readSetting(keyFile, 'sslkey', setting);
    const passphrase = params.get('sslpassword');
    if (passphrase !== null) tlsOptions.passphrase = passphrase;
  }
  try {
    // Bad PEM or a key that does not match its certificate fail here, once, with the setting named.
    tls.createSecureContext(tlsOptions);
  } catch (err) {
    throw new ConnectionSettingsError(`${setting}: the TLS files are not usable: ${(err as Error).message}`);
  }

  const verification: Verification = sslMode === 'verify-full' ? 'full' : sslMode === 'disable' ? 'none' : caSource ? 'chain' : 'none';
  if (verification === 'none') tlsOptions.rejectUnauthorized = false;
  else {
    tlsOptions.rejectUnauthorized = true;
    if (verification === 'chain') tlsOptions.checkServerIdentity = () => undefined;
  }

  for (const name of [...SUPPORTED_SSL_PARAMS, 'uselibpqcompat']) params.delete(name);
  const host = params.get('host') ?? (decoded(parsed.hostname).replace(/^\[(.*)\]$/, '$1') || 'localhost');
  const port = params.get('port') ?? (parsed.port || '5432');
  const database = decoded(parsed.pathname.slice(1));
  return {
    setting,
    target: `${host}:${port}${database ? `/${database}` : ''}`,
    host,
    sslMode,
    verification,
    caSource,
    base: { connectionString: parsed.toString() },
    tls: tlsOptions,
  };
}

function parseUrl(url: string, setting: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The URL is not echoed: it may hold a password.
    throw new ConnectionSettingsError(`${setting} is not a valid URL (expected postgres://user:password@host:port/database?sslmode=…)`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConnectionSettingsError(`${setting} must be a postgres:// or postgresql:// URL, not ${parsed.protocol}//`);
  }
  return parsed;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Node takes a CA bundle without a single certificate silently (and then trusts nothing). */
function certificates(pem: string, source: string, setting: string): string {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  try {
    if (blocks.length === 0) throw new Error('no PEM certificate in it');
    for (const block of blocks) new X509Certificate(block);
  } catch (err) {
    throw new ConnectionSettingsError(`${setting}: ${source} is not a CA bundle: ${(err as Error).message}`);
  }
  return pem;
}

async function readSetting(file: string, what: string, setting: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new ConnectionSettingsError(`${setting}: cannot read the ${what} file "${file}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * The platform's trusted CAs where Node can list them (22.15+); otherwise undefined, which makes
 * Node use its bundled Mozilla roots (plus NODE_EXTRA_CA_CERTS), its nearest equivalent.
 */
function systemCertificates(): string[] | undefined {
  const list = (tls as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  return list ? list('system') : undefined;
}
