import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { kubectl, type Kubectl, type KubectlResult } from '../helpers/kubectl.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** One server (and one kubectl discovery cache) for the whole test file, started in `before`. */
export interface E2eContext {
  readonly srv: TestServer;
  /** kubectl of `version` pointed at the server with the admin kubeconfig. */
  kubectl(version: string): Kubectl;
}

/** Registers file-level hooks that start a server before the first test and stop it after the last. */
export function useServer(extraFlags: string[] = []): () => E2eContext {
  let context: E2eContext | undefined;
  let cacheDir = '';
  before(async () => {
    const srv = await startTestServer(extraFlags);
    cacheDir = await mkdtemp(path.join(tmpdir(), 'pgkube-kubectl-cache-'));
    context = { srv, kubectl: (version) => kubectl(version, srv.kubeconfig, cacheDir) };
  });
  after(async () => {
    await context?.srv.stop();
    if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  });
  return () => {
    assert.ok(context, 'the e2e server is not started');
    return context;
  };
}

/** Asserts kubectl exited 0 (showing its stderr otherwise) and returns its stdout. */
export function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl exited ${result.code}${result.timedOut ? ' (timed out)' : ''}:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

/** A namespace name unique to one kubectl version (`e2e-objects-133`). */
export function namespaceFor(prefix: string, version: string): string {
  return `${prefix}-${version.replace('.', '')}`;
}
