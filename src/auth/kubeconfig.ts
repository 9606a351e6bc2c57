import yaml from 'js-yaml';
import { writeFileAtomic } from './pki/pem-files.ts';

export interface AdminKubeconfigOptions {
  /** The server URL, e.g. `https://127.0.0.1:6443`. */
  readonly server: string;
  /** PEM of the CA that signed the serving certificate. */
  readonly caPem: string;
  /** PEM of the client certificate and its private key. */
  readonly certPem: string;
  readonly keyPem: string;
  readonly clusterName?: string;
  readonly userName?: string;
  /** Defaults to `<userName>@<clusterName>`. */
  readonly contextName?: string;
}

const base64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

/** A kubeconfig (apiVersion v1, kind Config) with the certificates embedded as base64 data. */
export function buildAdminKubeconfig(options: AdminKubeconfigOptions): Record<string, unknown> {
  const clusterName = options.clusterName ?? 'pgkube';
  const userName = options.userName ?? 'admin';
  const contextName = options.contextName ?? `${userName}@${clusterName}`;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: clusterName, cluster: { server: options.server, 'certificate-authority-data': base64(options.caPem) } },
    ],
    users: [
      {
        name: userName,
        user: { 'client-certificate-data': base64(options.certPem), 'client-key-data': base64(options.keyPem) },
      },
    ],
    contexts: [{ name: contextName, context: { cluster: clusterName, user: userName } }],
    'current-context': contextName,
    preferences: {},
  };
}

/**
 * Writes an admin kubeconfig to `path` with mode 0600 (it holds a private key), replacing any
 * file there in one rename.
 *
 * @example
 * await writeAdminKubeconfig(join(dataDir, 'admin.kubeconfig'), {
 *   server: 'https://127.0.0.1:6443', caPem: pki.caCert.pem, certPem: pki.adminCert.pem, keyPem: pki.adminKey.pem,
 * });
 */
export async function writeAdminKubeconfig(path: string, options: AdminKubeconfigOptions): Promise<void> {
  const text = yaml.dump(buildAdminKubeconfig(options), { lineWidth: -1, noRefs: true });
  await writeFileAtomic(path, text, 0o600);
}
