import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { unauthorized } from '../../api/errors.ts';
import type { ApiError } from '../../api/errors.ts';
import { Oid, extendedKeyUsages, parseCertificate, subjectValues } from '../pki/certificate-info.ts';
import { SYSTEM_AUTHENTICATED } from '../user.ts';
import type { UserInfo } from '../user.ts';
import type { Authenticator } from './authenticator.ts';

/** The user-info extra key under which Kubernetes records which credential authenticated a request. */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

export interface X509AuthenticatorOptions {
  /**
   * Take the user's uid from the subject's UID attribute (OID 1.3.6.1.4.1.14677.1.1.1), as
   * Kubernetes does since 1.33 (feature AllowParsingUserUIDFromCertAuth, on by default).
   * Default true.
   */
  readonly parseUid?: boolean;
}

/** What one connection's certificate amounts to: a user, a reason to refuse, or nothing. */
type Outcome = { readonly user: UserInfo } | { readonly failure: string } | null;

/** Certificates whose judgement is remembered (the oldest goes first); a few distinct ones are normal. */
const REMEMBERED_CERTIFICATES = 1024;

/**
 * Authenticates requests by the TLS client certificate, as kube-apiserver's `--client-ca-file`
 * does. The server verifies the chain during the handshake: it is created with
 * `requestCert: true, rejectUnauthorized: false, ca: <client CAs>`, so a connection whose
 * certificate does not verify still completes and this authenticator turns it into a 401.
 *
 * A verified certificate names the user by its subject CN and the groups by its O values; one
 * without a CN has no opinion (null), as upstream. The result is computed once per connection, and
 * what a verified certificate amounts to once per certificate: every kubectl run and every HTTP/1.1
 * watch is a new connection presenting the same one.
 */
export class X509Authenticator implements Authenticator {
  readonly name = 'x509';
  readonly #parseUid: boolean;
  readonly #outcomes = new WeakMap<object, Outcome>();
  /** Verified certificates (DER as latin1 text) and what they amount to. */
  readonly #byCertificate = new Map<string, Outcome>();

  constructor(options: X509AuthenticatorOptions = {}) {
    this.#parseUid = options.parseUid ?? true;
  }

  authenticate(req: IncomingMessage): UserInfo | null {
    const socket = req.socket as Partial<TLSSocket> | undefined;
    if (!socket || typeof socket.getPeerX509Certificate !== 'function') return null; // not TLS
    // Over HTTP/2 each request's socket is a stand-in for the session's TLS socket: the session is
    // the connection the outcome belongs to.
    const connection: object = (req as { stream?: { session?: object } }).stream?.session ?? socket;
    let outcome = this.#outcomes.get(connection);
    if (outcome === undefined) {
      outcome = this.#evaluate(socket as TLSSocket);
      this.#outcomes.set(connection, outcome);
    }
    if (outcome === null) return null;
    if ('failure' in outcome) throw rejection(outcome.failure);
    return outcome.user;
  }

  #evaluate(socket: TLSSocket): Outcome {
    // The certificate's DER alone: getPeerCertificate would also decode every field and take three
    // fingerprints, about 100 µs a connection.
    const raw = socket.getPeerX509Certificate()?.raw;
    if (!raw || raw.length === 0) return null; // no certificate presented
    if (!socket.authorized) {
      return { failure: `verifying certificate failed: ${String(socket.authorizationError ?? 'unknown error')}` };
    }
    // Whether the chain verifies is the handshake's, per connection; what a verified certificate says is its own.
    const key = raw.toString('latin1');
    let outcome = this.#byCertificate.get(key);
    if (outcome === undefined) {
      outcome = this.#judge(raw);
      if (this.#byCertificate.size >= REMEMBERED_CERTIFICATES) this.#byCertificate.delete(this.#byCertificate.keys().next().value!);
      this.#byCertificate.set(key, outcome);
    }
    return outcome;
  }

  /** What a verified certificate amounts to. */
  #judge(raw: Buffer): Outcome {
    try {
      const info = parseCertificate(raw);
      const usages = extendedKeyUsages(info);
      if (usages && !usages.includes(Oid.clientAuth) && !usages.includes(Oid.anyExtendedKeyUsage)) {
        return { failure: 'verifying certificate failed: certificate specifies an incompatible key usage' };
      }
      const commonNames = subjectValues(info, Oid.commonName);
      const name = commonNames[commonNames.length - 1] ?? ''; // the last CN wins, as in Go
      if (name === '') return null;
      const uid = this.#parseUid ? readUid(subjectValues(info, Oid.userId)) : undefined;
      const groups = subjectValues(info, Oid.organization);
      if (!groups.includes(SYSTEM_AUTHENTICATED)) groups.push(SYSTEM_AUTHENTICATED);
      const credentialId = `X509SHA256=${createHash('sha256').update(raw).digest('hex')}`;
      const user: UserInfo = Object.freeze({
        name,
        ...(uid ? { uid } : {}),
        groups: Object.freeze(groups),
        extra: Object.freeze({ [CREDENTIAL_ID_KEY]: Object.freeze([credentialId]) }),
      });
      return { user };
    } catch (err) {
      return { failure: err instanceof Error ? err.message : String(err) };
    }
  }
}

function readUid(values: string[]): string | undefined {
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new Error(`expected 1 UID, but found multiple: ${values.join(', ')}`);
  if (values[0] === '') throw new Error('UID cannot be an empty string');
  return values[0];
}

/** A 401 that says only "Unauthorized" to the client, as upstream; the reason stays in `cause` for logs. */
function rejection(reason: string): ApiError {
  const err = unauthorized();
  err.cause = new Error(`x509: ${reason}`);
  return err;
}
