import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import type { TestServer } from '../helpers/server.ts';

/** A client certificate for a user (CN) in groups (O), signed by the server's CA. */
export async function userAgent(server: TestServer, dir: string, cn: string, groups: string[]): Promise<https.Agent> {
  const pki = path.join(server.dataDir, 'pki');
  const [key, csr, crt, ext] = ['key', 'csr', 'crt', 'ext'].map((e) => path.join(dir, `${cn}.${e}`));
  await writeFile(ext!, 'extendedKeyUsage=clientAuth\n');
  const subject = `/CN=${cn}${groups.map((g) => `/O=${g}`).join('')}`;
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key!, '-out', csr!, '-subj', subject], { stdio: 'ignore' });
  execFileSync('openssl', ['x509', '-req', '-in', csr!, '-CA', path.join(pki, 'ca.crt'), '-CAkey', path.join(pki, 'ca.key'), '-CAcreateserial', '-out', crt!, '-days', '1', '-extfile', ext!], { stdio: 'ignore' });
  return new https.Agent({ ca: server.ca, cert: await readFile(crt!, 'utf8'), key: await readFile(key!, 'utf8') });
}

