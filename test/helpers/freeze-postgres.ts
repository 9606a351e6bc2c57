import { readFileSync, readdirSync } from 'node:fs';

/** The process ids of `root` and all its descendants (Linux /proc), parents before children. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const visit = (pid: number) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return out;
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // exited meanwhile
    }
  }
}

export interface FrozenPostgres {
  /** SIGCONT to every process that was stopped; safe to call twice. */
  thaw(): void;
}

/**
 * Freezes a PostgreSQL cluster as a hung server or a network blackhole looks to its clients: every
 * process of it (postmaster first, so that it forks nothing new, then backends and helpers) gets
 * SIGSTOP. Its sockets stay open and the kernel keeps accepting connections and bytes, but nothing
 * answers until thaw().
 */
export function freezePostgres(postmasterPid: number): FrozenPostgres {
  process.kill(postmasterPid, 'SIGSTOP');
  const pids = processTree(postmasterPid);
  signalAll(pids, 'SIGSTOP');
  let thawed = false;
  return {
    thaw: () => {
      if (thawed) return;
      thawed = true;
      signalAll(pids, 'SIGCONT');
    },
  };
}
