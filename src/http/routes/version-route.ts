import type Router from '@koa/router';

/** The Kubernetes release whose API this server implements. */
export const KUBERNETES_VERSION = { major: '1', minor: '34', gitVersion: 'v1.34.0' };

export function versionInfo(): Record<string, string> {
  return {
    major: KUBERNETES_VERSION.major,
    minor: KUBERNETES_VERSION.minor,
    gitVersion: `${KUBERNETES_VERSION.gitVersion}+pgkube`,
    gitCommit: process.env.GIT_COMMIT ?? 'unknown',
    gitTreeState: 'clean',
    buildDate: '2026-11-22T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsx',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

export function registerVersionRoute(router: Router): void {
  const body = JSON.stringify(versionInfo(), null, 2);
  router.get('/version', (ctx) => {
    ctx.set('Content-Type', 'application/json');
    ctx.body = body;
  });
}
