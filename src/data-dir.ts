import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import type { Logger } from 'pino';

/**
 * The data dir holds the CA key, the admin kubeconfig and (embedded) the database with every Secret:
 * nobody but the server's user may enter it. Mode 0700; when root runs the embedded PostgreSQL as
 * the `postgres` OS user, 0710 with that user's group, so PostgreSQL can reach its cluster directory
 * inside without being able to list or read anything else. A looser existing directory is tightened.
 */
export async function prepareDataDir(dataDir: string, logger: Logger, postgresGroup?: number): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const mode = postgresGroup === undefined ? 0o700 : 0o710;
  const before = await stat(dataDir);
  if (postgresGroup !== undefined && before.gid !== postgresGroup) await chown(dataDir, before.uid, postgresGroup);
  if ((before.mode & 0o777) !== mode) {
    await chmod(dataDir, mode);
    if ((before.mode & 0o077 & ~mode) !== 0) logger.info({ dataDir, mode: mode.toString(8), was: (before.mode & 0o777).toString(8) }, 'restricted the data dir to the server');
  }
}
