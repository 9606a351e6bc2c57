import { generateKeyPairSync } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Test servers share one service account signing key, made once per machine in the temp dir, so
 * that each start does not generate an RSA 2048 key (hundreds of ms of CPU, and more on a loaded
 * machine). Each data dir gets its own copy, where the server finds it as on a restart.
 */
const SHARED_KEY = path.join(tmpdir(), `pgkube-test-sa-key-${process.getuid?.() ?? 0}.pem`);

let shared: Promise<string> | undefined;

function sharedKey(): Promise<string> {
  return (shared ??= (async () => {
    try {
      return await readFile(SHARED_KEY, 'utf8');
    } catch {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      // Written aside and renamed: a process reading it never sees half a key.
      const aside = `${SHARED_KEY}.${process.pid}`;
      await writeFile(aside, pem, { mode: 0o600 });
      await rename(aside, SHARED_KEY);
      return pem;
    }
  })());
}

/** Puts the shared signing key where the server looks for its generated one: `<data-dir>/pki/sa.key`. */
export async function seedServiceAccountKey(dataDir: string): Promise<void> {
  const pki = path.join(dataDir, 'pki');
  await mkdir(pki, { recursive: true, mode: 0o700 });
  await writeFile(path.join(pki, 'sa.key'), await sharedKey(), { mode: 0o600 });
}
