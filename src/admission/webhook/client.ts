/**
 * How the webhook plugins reach a webhook: an HTTPS POST of the AdmissionReview to the configured
 * URL, trusting the configuration's caBundle (the system roots without one), with the webhook's
 * timeout on the whole exchange. Failures are worded as Go's HTTP client words them
 * (`Post "https://…?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`), since
 * upstream quotes them to the client. Agents are kept per CA bundle and reused.
 */
import { createHash } from 'node:crypto';
import https from 'node:https';
import path from 'node:path';

/** What came back: any HTTP status, the body and its content type. */
export interface WebhookReply {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** A transport failure, its message already in Go's words (`Post "<url>": <why>`). */
export class TransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransportError';
  }
}

/** Where a webhook is: its URL, or a service reference (reachable only through a ServiceResolver). */
export type WebhookTarget = { readonly url: string; readonly caBundle?: string } | { readonly service: { name: string; namespace: string; path?: string; port: number }; readonly caBundle?: string };

/** The URL a request goes to, as client-go's REST client builds it: host, the cleaned path, `?timeout=Ns`. */
export function requestUrl(target: WebhookTarget, timeoutSeconds: number): string {
  const query = `?timeout=${timeoutSeconds}s`;
  if ('service' in target) {
    const s = target.service;
    return `https://${s.name}.${s.namespace}.svc:${s.port}${path.posix.join('/', s.path ?? '')}${query}`;
  }
  const u = new URL(target.url);
  return `${u.protocol}//${u.host}${path.posix.join('/', u.pathname)}${query}`;
}

const MAX_REPLY_BYTES = 3 * 1024 * 1024;

/**
 * Where a Service's port really is (upstream's webhook.ServiceResolver). Only the dial goes there:
 * the URL, Host header and TLS server name stay `<name>.<namespace>.svc`, as upstream's dialer does.
 */
export type ServiceResolver = (service: { name: string; namespace: string; port: number }) => Promise<{ host: string; port: number }>;

export class WebhookClients {
  readonly #agents = new Map<string, https.Agent>();
  readonly #resolveService: ServiceResolver | undefined;

  /** Without a resolver no cluster Services exist, and calling one fails as for a missing Service. */
  constructor(options: { resolveService?: ServiceResolver } = {}) {
    this.#resolveService = options.resolveService;
  }

  #agent(caBundle: string | undefined): https.Agent {
    const ca = caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : '';
    const key = ca ? createHash('sha256').update(ca).digest('hex') : '';
    let agent = this.#agents.get(key);
    if (!agent) {
      agent = new https.Agent({ keepAlive: true, ...(ca ? { ca } : {}) });
      this.#agents.set(key, agent);
    }
    return agent;
  }

  /**
   * POSTs `body` and resolves with whatever HTTP answer comes back; rejects with a TransportError
   * when there is none within `timeoutSeconds`, or no connection at all.
   */
  async post(target: WebhookTarget, body: string, timeoutSeconds: number, userAgent = 'kube-apiserver-admission'): Promise<WebhookReply> {
    const url = requestUrl(target, timeoutSeconds);
    let dial: https.RequestOptions = {};
    if ('service' in target) {
      const s = target.service;
      if (!this.#resolveService) throw new TransportError(`Post "${url}": service "${s.name}" not found`);
      let endpoint;
      try {
        endpoint = await this.#resolveService({ name: s.name, namespace: s.namespace, port: s.port });
      } catch (err) {
        throw new TransportError(`Post "${url}": ${(err as Error).message}`);
      }
      dial = { hostname: endpoint.host, port: endpoint.port, servername: `${s.name}.${s.namespace}.svc` };
    }
    const agent = this.#agent(target.caBundle);
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new TransportError(`Post "${url}": ${goNetError(err, new URL(url))}`));
      };
      const req = https.request(
        url,
        {
          method: 'POST',
          agent,
          ...dial,
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, */*',
            'Content-Length': String(Buffer.byteLength(body)),
            'User-Agent': userAgent,
            Host: new URL(url).host,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= MAX_REPLY_BYTES) chunks.push(c);
          });
          res.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') });
          });
          res.on('error', fail);
        },
      );
      const timer = setTimeout(() => {
        const err = new Error('context deadline exceeded') as NodeJS.ErrnoException;
        err.code = 'DEADLINE';
        req.destroy(err);
        fail(err);
      }, timeoutSeconds * 1000);
      req.on('error', fail);
      req.end(body);
    });
  }

  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}

/** A Node network or TLS error as Go's net/http and crypto/tls print theirs. */
function goNetError(err: Error, url: URL): string {
  const e = err as NodeJS.ErrnoException & { cert?: { subjectaltname?: string }; reason?: string; host?: string };
  const hostPort = `${url.hostname}:${url.port || '443'}`;
  switch (e.code) {
    case 'DEADLINE':
      return 'context deadline exceeded';
    case 'ECONNREFUSED':
      return `dial tcp ${hostPort}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'EHOSTUNREACH':
      return `dial tcp ${hostPort}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${hostPort}: connect: network is unreachable`;
    case 'ECONNRESET':
      return e.message === 'socket hang up' ? 'EOF' : `read tcp ${hostPort}: read: connection reset by peer`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: ${hostnameError(url.hostname, e.cert?.subjectaltname ?? '')}`;
    default:
      return e.message;
  }
}

/** x509.HostnameError's text from the certificate's subject alternative names. */
function hostnameError(host: string, altNames: string): string {
  const entries = altNames.split(',').map((s) => s.trim()).filter(Boolean);
  const ips = entries.filter((s) => s.startsWith('IP Address:')).map((s) => s.slice('IP Address:'.length));
  const dns = entries.filter((s) => s.startsWith('DNS:')).map((s) => s.slice('DNS:'.length));
  const isIp = /^[0-9.]+$/.test(host) || host.includes(':');
  if (isIp) {
    if (ips.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ips.join(', ')}, not ${host}`;
  }
  if (dns.length === 0) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${dns.join(', ')}, not ${host}`;
}
