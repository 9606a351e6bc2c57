import pg from 'pg';
import type { ConnectionPlan } from './connection-options.ts';

/**
 * Connects once to settle how every later connection of a pool is made. libpq falls back between
 * TLS and plain on each connect (allow, prefer); pg cannot, so the fallback is decided here, once,
 * when the pool opens, and costs nothing afterwards. The other modes connect once too, so that a
 * wrong certificate or a refused connection stops start-up with a clear error instead of failing
 * the first query.
 *
 * One difference from libpq: with prefer and a root CA given, a certificate that fails
 * verification is an error rather than a silent retry without TLS.
 */
export async function settleConnection(plan: ConnectionPlan): Promise<pg.ClientConfig> {
  const plain: pg.ClientConfig = { ...plan.base, ssl: false };
  const encrypted: pg.ClientConfig = { ...plan.base, ssl: plan.tls };
  switch (plan.sslMode) {
    case 'disable':
      return connected(plain, plan);
    case 'allow':
      return fallingBack({ config: plain, label: 'without TLS' }, { config: encrypted, label: 'with TLS' }, plan, isServerRejection);
    case 'prefer':
      return fallingBack({ config: encrypted, label: 'with TLS' }, { config: plain, label: 'without TLS' }, plan, (err) => isNoSslSupport(err) || isServerRejection(err));
    default:
      return connected(encrypted, plan);
  }
}

interface Attempt {
  readonly config: pg.ClientConfig;
  readonly label: string;
}

async function fallingBack(first: Attempt, second: Attempt, plan: ConnectionPlan, retry: (err: unknown) => boolean): Promise<pg.ClientConfig> {
  try {
    await connectOnce(first.config);
    return first.config;
  } catch (firstError) {
    if (!retry(firstError)) throw explainConnectionError(firstError, plan);
    try {
      await connectOnce(second.config);
      return second.config;
    } catch (secondError) {
      // "No TLS here" only chose the transport: what went wrong is the second attempt's.
      if (isNoSslSupport(firstError)) throw explainConnectionError(secondError, plan);
      // Both were refused: the first refusal (e.g. the pg_hba line that is missing) with the second.
      const explained = explainConnectionError(firstError, plan);
      explained.message += `; ${second.label}: ${(secondError as Error).message}`;
      throw explained;
    }
  }
}

async function connected(config: pg.ClientConfig, plan: ConnectionPlan): Promise<pg.ClientConfig> {
  try {
    await connectOnce(config);
  } catch (err) {
    throw explainConnectionError(err, plan);
  }
  return config;
}

async function connectOnce(config: pg.ClientConfig): Promise<void> {
  const client = new pg.Client(config);
  client.on('error', () => undefined);
  try {
    await client.connect();
  } finally {
    await client.end().catch(() => undefined);
  }
}

const NO_SSL_SUPPORT = 'The server does not support SSL connections';

function isNoSslSupport(err: unknown): boolean {
  return err instanceof Error && err.message === NO_SSL_SUPPORT;
}

/** The server answered and said no (pg_hba, authentication): another transport may be let in. */
function isServerRejection(err: unknown): boolean {
  return err instanceof pg.DatabaseError;
}

/** OpenSSL's verification failures, as Node reports them in `code`. */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
]);

/**
 * A connection failure as an operator can act on it: which setting, which server, what failed.
 * The URL itself is never included (it may hold a password); SQLSTATE or error codes are kept.
 */
export function explainConnectionError(err: unknown, plan: ConnectionPlan): Error {
  const e: Error & { code?: unknown; reason?: unknown } = err instanceof Error ? err : new Error(String(err));
  const where = `PostgreSQL at ${plan.target} (${plan.setting}, sslmode=${plan.sslMode})`;
  let message: string;
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const reason = typeof e.reason === 'string' ? e.reason : e.message;
    message =
      `the server certificate of ${where} is not valid for the host name "${plan.host}": ${reason}. ` +
      'Connect by a name the certificate lists, or use sslmode=verify-ca to verify only the chain';
  } else if (typeof e.code === 'string' && CERTIFICATE_CODES.has(e.code)) {
    message = `the server certificate of ${where} could not be verified against ${plan.caSource ?? 'the default CAs'}: ${e.message}`;
  } else if (isNoSslSupport(e)) {
    message = `${where} does not support SSL connections, which sslmode=${plan.sslMode} requires; turn ssl on in the server or use sslmode=prefer or disable`;
  } else {
    message = `cannot connect to ${where}: ${e.message}`;
  }
  const explained = new Error(message, { cause: err }) as Error & { code?: unknown };
  if (e.code !== undefined) explained.code = e.code;
  return explained;
}
