import { admissionPluginNames } from './admission/index.ts';
import { parseControllers } from './controllers/controller-names.ts';
import { auditFlagProblems } from './audit/flags.ts';
import { showHiddenMetricsVersionProblem } from './metrics/stability.ts';
import { availableParallelism } from 'node:os';
import { resolveWorkers } from './startup/workers/pool-split.ts';
import { parseWatchCacheSizes } from './storage/cache/cache-sizes.ts';

/**
 * Server settings: each flag (named after kube-apiserver's where one exists) can also come from the
 * environment as the upper-snake-case of its name (`--secure-port` ⇔ `SECURE_PORT`). Flags win.
 */
export interface FlagDefinition {
  readonly name: string;
  readonly env: string;
  readonly type: 'string' | 'int' | 'float' | 'bool' | 'duration' | 'list';
  readonly default: string;
  readonly help: string;
}

function flag(name: string, type: FlagDefinition['type'], def: string, help: string, env?: string): FlagDefinition {
  return { name, env: env ?? name.toUpperCase().replace(/-/g, '_'), type, default: def, help };
}

export const FLAGS: readonly FlagDefinition[] = [
  flag('secure-port', 'int', '6443', 'Port to serve HTTPS on.'),
  flag('bind-address', 'string', '127.0.0.1', 'Address to listen on (0.0.0.0 or :: for all interfaces).'),
  flag('data-dir', 'string', './data', 'Directory for the embedded PostgreSQL, certificates and the admin kubeconfig.'),
  flag('database-url', 'string', '', 'PostgreSQL connection URL; when empty an embedded PostgreSQL is started in the data dir.', 'DATABASE_URL'),
  flag(
    'database-listen-url',
    'string',
    '',
    'PostgreSQL URL of the connection that LISTENs for changes (watches); empty means --database-url. Set it to a direct connection when --database-url goes through a transaction-mode pooler (PgBouncer, cloud poolers): the main pool then keeps no session state.',
    'DATABASE_LISTEN_URL',
  ),
  flag(
    'database-ca-file',
    'string',
    '',
    'CA bundle (PEM) that verifies the PostgreSQL server certificate, like sslrootcert in the URL (which wins when both are set). TLS follows libpq: sslmode in the URL, default prefer.',
    'DATABASE_CA_FILE',
  ),
  flag('embedded-postgres-port', 'int', '5433', 'Port of the embedded PostgreSQL (loopback only).'),
  flag('database-max-connections', 'int', '20', 'Size of the PostgreSQL connection pool.'),
  flag(
    'workers',
    'string',
    '',
    'Server processes sharing --secure-port (node:cluster, round robin), each a full replica with its own pool; together they hold at most --database-max-connections connections (LISTEN included), and run the controllers in the one that holds the leader Lease. Empty: the number of cores less one (left to PostgreSQL), at least 1, and no more than --database-max-connections / 4. 1: a single process, the pool being --database-max-connections.',
  ),
  flag(
    'database-connect-timeout',
    'duration',
    '10s',
    'Longest wait for a database connection: opening one, or a free one of the pool, or a write waiting to be sent; past it the request is answered 503 (nothing was sent, so nothing was applied); 0 means no limit.',
  ),
  flag(
    'database-statement-timeout',
    'duration',
    '30s',
    'Longest wait for the answer to a request\'s database statement (client side, so it holds behind poolers too); past it the connection is dropped and the request answered 504 (a write may still have been applied); 0 means no limit.',
  ),
  flag('database-healthcheck-timeout', 'duration', '2s', 'Longest wait for the database in /readyz, /livez and /healthz before the postgres check fails.'),
  flag('auto-migrate', 'bool', 'true', 'Apply pending schema migrations at start; when false, refuse to start with pending ones.'),
  flag('tls-cert-file', 'string', '', 'Serving certificate (PEM); default: one generated in <data-dir>/pki.'),
  flag('tls-private-key-file', 'string', '', 'Private key of --tls-cert-file.'),
  flag('client-ca-file', 'string', '', 'CA bundle that client certificates are verified against; default: the generated CA.'),
  flag('tls-extra-sans', 'list', '', 'Extra DNS names or IPs for the generated serving certificate (comma separated).'),
  flag(
    'http2-max-streams-per-connection',
    'int',
    '0',
    'The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). Zero means upstream\'s default, 100. Each stream may have 256 KiB of request body in flight, the connection that times the streams.',
  ),
  flag(
    'goaway-chance',
    'float',
    '0',
    'To keep HTTP/2 clients from sticking to one replica, the fraction of HTTP/2 requests (watches and other long-running ones apart) whose connection is sent GOAWAY after the response: the client\'s requests under way finish and its next ones open a new connection, likely through the load balancer to another replica. Min is 0 (off), max is .02 (1/50 requests); .001 (1/1000) is a recommended starting point. Leave it off for a single replica or without a load balancer. HTTP/1.1 is unaffected.',
  ),
  flag('anonymous-auth', 'bool', 'true', 'Requests without credentials run as system:anonymous (groups system:unauthenticated); false answers them 401.'),
  flag('token-auth-file', 'string', '', 'Static bearer tokens: a CSV file of token,user,uid,"group1,group2,…" lines.'),
  flag('enable-bootstrap-token-auth', 'bool', 'false', 'Bootstrap tokens (Secrets of type bootstrap.kubernetes.io/token in kube-system) authenticate as system:bootstrap:<token id>.'),
  flag('service-account-issuer', 'list', 'https://kubernetes.default.svc.cluster.local', 'Issuer (iss) of service account tokens; the first signs new tokens, all are accepted.'),
  flag('service-account-signing-key-file', 'string', '', 'Private key (PEM) that signs service account tokens; default: one generated at first start in <data-dir>/pki/sa.key (mode 0600).'),
  flag('service-account-key-file', 'list', '', 'Public or private keys (PEM files) that verify service account tokens, each file may hold several; default: the signing key.'),
  flag('service-account-jwks-uri', 'string', '', 'jwks_uri of the issuer\'s discovery document (an https URL where relying parties fetch /openid/v1/jwks); default: the issuer URL and /openid/v1/jwks.'),
  flag('service-account-lookup', 'bool', 'true', 'Refuse service account tokens whose ServiceAccount, Secret or bound object is gone (or was replaced).'),
  flag('service-account-max-token-expiration', 'duration', '0s', 'Longest lifetime of a token from TokenRequest; 0 means no limit beyond the request.'),
  flag('service-account-extend-token-expiration', 'bool', 'true', 'Pod-bound tokens asked for with the default hour get a year, with the warning metadata, as upstream.'),
  flag('api-audiences', 'list', '', 'Audiences of the API: tokens must name one; default: the first --service-account-issuer.'),
  flag('oidc-issuer-url', 'string', '', 'OpenID Connect issuer (https) whose ID tokens authenticate users.'),
  flag('oidc-client-id', 'string', '', 'The client id an OIDC token must be issued for (aud).'),
  flag('oidc-ca-file', 'string', '', 'CA bundle that verifies the OIDC issuer\'s certificate; default: the system roots.'),
  flag('oidc-username-claim', 'string', 'sub', 'The claim that names the user.'),
  flag('oidc-username-prefix', 'string', '', 'Prefix for OIDC user names; default: the issuer URL and # unless the claim is email; "-" for none.'),
  flag('oidc-groups-claim', 'string', '', 'The claim that lists the user\'s groups (a string or an array of strings).'),
  flag('oidc-groups-prefix', 'string', '', 'Prefix for OIDC group names.'),
  flag('oidc-required-claim', 'list', '', 'claim=value pairs every OIDC token must carry.'),
  flag('oidc-signing-algs', 'list', 'RS256', 'Signing algorithms accepted for OIDC tokens.'),
  flag('authentication-config', 'string', '', 'AuthenticationConfiguration file (apiserver.config.k8s.io/v1): JWT issuers with CEL claim mappings and rules, reloaded on change, and which paths may be anonymous; excludes the --oidc-* flags, and --anonymous-auth when it has an anonymous section.'),
  flag('authorization-mode', 'list', '', 'Authorizers in order: AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook; default Node,RBAC. system:masters is always allowed. Excludes --authorization-config.'),
  flag('authorization-config', 'string', '', 'AuthorizationConfiguration file (apiserver.config.k8s.io/v1): the authorizer chain with webhook settings, reloaded on change and every minute.'),
  flag('authorization-webhook-config-file', 'string', '', 'Kubeconfig of the webhook authorizer (--authorization-mode=Webhook).'),
  flag('authorization-webhook-version', 'string', 'v1beta1', 'SubjectAccessReview version sent to the webhook: v1 or v1beta1.'),
  flag('authorization-webhook-cache-authorized-ttl', 'duration', '5m', 'How long a webhook\'s allow is cached.'),
  flag('authorization-webhook-cache-unauthorized-ttl', 'duration', '30s', 'How long a webhook\'s deny is cached.'),
  flag('controllers', 'list', '*', 'Controllers to run, as kube-controller-manager names them: * (every one on by default), name, -name; bootstrapsigner and tokencleaner are off by default.'),
  flag(
    'enable-admission-plugins',
    'list',
    '',
    'Admission plugins to enable in addition to the default ones (NamespaceLifecycle, LimitRanger, ServiceAccount, PodSecurity, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota). This server has: AlwaysAdmit, NamespaceLifecycle, LimitRanger, ServiceAccount, PodSecurity, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota, AlwaysDeny; they run in kube-apiserver\'s order whatever the order here.',
  ),
  flag('disable-admission-plugins', 'list', '', 'Admission plugins to disable although they are enabled by default (any kube-apiserver plugin name is accepted).'),
  flag(
    'admission-control-config-file',
    'string',
    '',
    'AdmissionConfiguration file (apiserver.config.k8s.io/v1) with per-plugin configuration, embedded or by path (relative to the file): PodSecurity takes a PodSecurityConfiguration (default levels, exempt users, namespaces and runtime classes), ResourceQuota a ResourceQuotaConfiguration (limitedResources); read at start, a bad one stops it.',
  ),
  flag(
    'runtime-config',
    'list',
    '',
    'Enable or disable built-in APIs, as kube-apiserver 1.34: <group>/<version>=true or false (v1 or api/v1 for the whole core group), <group>/<version>/<resource>=true or false (/v1/<resource> for one core resource), api/all, api/ga, api/beta or api/alpha=true or false for every version of that level; a value left out means true. Beta and alpha versions are off by default. An unknown group, or a version the group never had, stops the start.',
  ),
  flag(
    'feature-gates',
    'list',
    '',
    'Feature gates of kube-apiserver 1.34, as Name=true or false pairs (kube:Name=… too); AllAlpha= and AllBeta= set every alpha or beta gate not named. Each gate keeps its 1.34 default unless named (APIResponseCompression and WatchList on, CBORServingAndStorage and AllowUnsafeMalformedObjectDeletion off, …). An unknown gate, or a locked gate set against its default, stops the start; naming a GA or deprecated gate logs a warning.',
  ),
  flag(
    'watch-cache',
    'bool',
    'true',
    'Keep each resource in memory, fed by a watch, from its first read that can use it: gets and lists with resourceVersion=0 or NotOlderThan, and lists without a resourceVersion once the cache has reached the database\'s current revision, are answered from it (continue tokens and Exact read the database). false: every read goes to PostgreSQL.',
  ),
  flag(
    'watch-cache-sizes',
    'list',
    '',
    'Per-resource watch cache settings, resource[.group]#size (group omitted for the core group), comma separated. As upstream, only 0 means something: no cache for that resource; any other size leaves it on.',
  ),
  flag('history-window', 'duration', '5m', 'How long watch history (and continue tokens) stay valid.'),
  flag('compaction-interval', 'duration', '30s', 'How often old history is compacted.'),
  flag('watch-bookmark-interval', 'duration', '60s', 'How often watches that allow bookmarks receive one.'),
  flag('max-request-body-bytes', 'int', '3145728', 'Largest request body accepted (413 above it).'),
  flag(
    'max-requests-inflight',
    'int',
    '400',
    'With --enable-priority-and-fairness, this plus --max-mutating-requests-inflight is the seats the priority levels share. Without: most non-mutating requests (get, list) served at once; more are answered 429 with Retry-After (system:masters excepted, watches not counted); 0: no limit.',
  ),
  flag(
    'max-mutating-requests-inflight',
    'int',
    '200',
    'With --enable-priority-and-fairness, part of the seats the priority levels share (see --max-requests-inflight). Without: most mutating requests (create, update, patch, delete) served at once; more are answered 429 with Retry-After (system:masters excepted); 0: no limit.',
  ),
  flag(
    'enable-priority-and-fairness',
    'bool',
    'true',
    'API Priority and Fairness: FlowSchemas classify requests into PriorityLevelConfigurations, which share the in-flight seats, queue fairly by flow and answer 429 with Retry-After past their limits (exempt: system:masters and probes). false: the plain max-in-flight limits instead.',
  ),
  flag('min-request-timeout', 'int', '1800', 'Upper bound in seconds for the random timeout of watches that set none.'),
  flag(
    'request-timeout',
    'duration',
    '60s',
    'Longest time a request other than a watch may take; past it the request is answered 504 Timeout. A client\'s `timeout` query parameter may shorten it.',
  ),
  flag('event-ttl', 'duration', '1h', 'How long events are kept after they were last touched.'),
  flag('leader-elect', 'bool', 'true', 'Run the controllers only in the replica that holds the Lease in kube-system.'),
  flag('leader-elect-lease-duration', 'duration', '15s', 'Lease duration for controller leader election.'),
  flag('shutdown-delay-duration', 'duration', '0s', 'Time to keep serving (with readyz failing) after SIGTERM before closing.'),
  flag('shutdown-send-retry-after', 'bool', 'false', 'At shutdown, keep listening until in-flight requests are done and answer new ones with 429 and Retry-After (instead of refusing new connections).'),
  flag('shutdown-timeout', 'duration', '60s', 'Longest time to wait for in-flight requests at shutdown.'),
  flag('livez-grace-period', 'duration', '0s', 'Time after start during which livez reports healthy regardless of checks.'),
  flag('audit-policy-file', 'string', '', 'Audit policy (an audit.k8s.io/v1 Policy file): which requests are audited, at which level (None, Metadata, Request, RequestResponse); nothing is audited without it.'),
  flag('audit-log-path', 'string', '', 'Audit log file, one audit.k8s.io/v1 Event per line; - is standard output. Needs --audit-policy-file to record anything.'),
  flag('audit-log-maxsize', 'int', '0', 'Size in megabytes at which the audit log is rotated (renamed with its UTC time before the extension, as audit-2025-01-02T03-04-05.000.log); 0 means 100.'),
  flag('audit-log-maxbackup', 'int', '0', 'Most rotated audit log files kept; 0 keeps all.'),
  flag('audit-log-maxage', 'int', '0', 'Most days a rotated audit log file is kept, by the time in its name; 0 keeps them all.'),
  flag('audit-log-compress', 'bool', 'false', 'gzip rotated audit log files.'),
  flag('audit-log-format', 'string', 'json', 'Audit log format: json (one Event object per line) or legacy (one line of text per event).'),
  flag('audit-log-mode', 'string', 'blocking', 'How events are written: blocking (before the request goes on; failures are logged), blocking-strict (a request whose first event cannot be written fails with 500) or batch (queued and written in the background; dropped when the queue is full).'),
  flag('audit-log-batch-buffer-size', 'int', '10000', 'Events queued at most in batch mode before new ones are dropped.'),
  flag('audit-log-version', 'string', 'audit.k8s.io/v1', 'API group and version of the events written (only audit.k8s.io/v1).'),
  flag(
    'show-hidden-metrics-for-version',
    'string',
    '',
    'Expose again at /metrics the metrics hidden in this release (deprecated before it, e.g. apiserver_storage_db_total_size_in_bytes). The only accepted value is the previous minor release, 1.33, so that metrics hidden by a later release are noticed before they are removed.',
  ),
  flag('log-level', 'string', 'info', 'pino log level: fatal, error, warn, info, debug, trace.'),
];

export interface Config {
  securePort: number;
  bindAddress: string;
  dataDir: string;
  databaseUrl: string;
  databaseListenUrl: string;
  databaseCaFile: string;
  embeddedPostgresPort: number;
  databaseMaxConnections: number;
  /** --workers, resolved (empty → the default); 1 is a single process. */
  workers: number;
  databaseConnectTimeoutMs: number;
  databaseStatementTimeoutMs: number;
  databaseHealthcheckTimeoutMs: number;
  autoMigrate: boolean;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  clientCaFile: string;
  tlsExtraSans: string[];
  http2MaxStreamsPerConnection: number;
  /** Probability (0 to 0.02) that an HTTP/2 request's connection is sent GOAWAY after its response. */
  goawayChance: number;
  anonymousAuth: boolean;
  tokenAuthFile: string;
  enableBootstrapTokenAuth: boolean;
  serviceAccountIssuer: string[];
  serviceAccountSigningKeyFile: string;
  serviceAccountKeyFile: string[];
  serviceAccountJwksUri: string;
  serviceAccountLookup: boolean;
  serviceAccountMaxTokenExpirationMs: number;
  serviceAccountExtendTokenExpiration: boolean;
  apiAudiences: string[];
  oidcIssuerUrl: string;
  oidcClientId: string;
  oidcCaFile: string;
  oidcUsernameClaim: string;
  oidcUsernamePrefix: string;
  oidcGroupsClaim: string;
  oidcGroupsPrefix: string;
  oidcRequiredClaim: string[];
  oidcSigningAlgs: string[];
  authenticationConfig: string;
  authorizationMode: string[];
  authorizationConfig: string;
  authorizationWebhookConfigFile: string;
  authorizationWebhookVersion: string;
  authorizationWebhookCacheAuthorizedTtlMs: number;
  authorizationWebhookCacheUnauthorizedTtlMs: number;
  controllers: string[];
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  admissionControlConfigFile: string;
  runtimeConfig: string[];
  featureGates: string[];
  watchCache: boolean;
  watchCacheSizes: string[];
  historyWindowMs: number;
  compactionIntervalMs: number;
  watchBookmarkIntervalMs: number;
  maxRequestBodyBytes: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  enablePriorityAndFairness: boolean;
  /** Seconds. */
  minRequestTimeout: number;
  requestTimeoutMs: number;
  eventTtlMs: number;
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number;
  shutdownDelayDurationMs: number;
  shutdownSendRetryAfter: boolean;
  shutdownTimeoutMs: number;
  livezGracePeriodMs: number;
  auditPolicyFile: string;
  auditLogPath: string;
  auditLogMaxsize: number;
  auditLogMaxbackup: number;
  auditLogMaxage: number;
  auditLogCompress: boolean;
  auditLogFormat: string;
  auditLogMode: string;
  auditLogBatchBufferSize: number;
  auditLogVersion: string;
  showHiddenMetricsForVersion: string;
  logLevel: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses a Go-style duration (`300ms`, `1.5s`, `5m`, `1h30m`) into milliseconds. */
export function parseDuration(text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(re)) {
    if (m.index !== consumed) break;
    consumed += m[0].length;
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
  }
  if (consumed !== text.length || text.length === 0) throw new ConfigError(`invalid duration "${text}"`);
  return total;
}

function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The flags each Config from loadConfig was given on purpose (see flagGiven). */
const givenFlags = new WeakMap<Config, ReadonlySet<string>>();

/**
 * Whether a flag was set on purpose rather than left at its default: on the command line, or in the
 * environment to a value other than its default (a copy of .env.example, which spells out every
 * default, sets none). Upstream tells these apart for the flags that exclude parts of
 * --authentication-config (--anonymous-auth, --oidc-*). A Config not made by loadConfig has none.
 */
export function flagGiven(config: Config, name: string): boolean {
  return givenFlags.get(config)?.has(name) ?? false;
}

/** Reads flags from argv (`--name=value`, `--name value`, `--bool-flag`) over the environment. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Config {
  const raw = new Map<string, string>();
  const given = new Set<string>();
  for (const f of FLAGS) {
    const fromEnv = env[f.env];
    raw.set(f.name, fromEnv !== undefined && fromEnv !== '' ? fromEnv : f.default);
    if (fromEnv !== undefined && fromEnv !== '' && fromEnv !== f.default) given.add(f.name);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const def = FLAGS.find((f) => f.name === name);
    if (!def) throw new ConfigError(`unknown flag: --${name}`);
    given.add(name);
    if (eq >= 0) raw.set(name, arg.slice(eq + 1));
    else if (def.type === 'bool') raw.set(name, 'true');
    else if (i + 1 < argv.length) raw.set(name, argv[++i]);
    else throw new ConfigError(`flag needs an argument: --${name}`);
  }
  const out: Record<string, unknown> = {};
  for (const f of FLAGS) {
    const value = raw.get(f.name) ?? f.default;
    let key = camel(f.name);
    let parsed: unknown;
    switch (f.type) {
      case 'int':
        if (!/^\d+$/.test(value)) throw new ConfigError(`invalid value "${value}" for --${f.name}: must be a non-negative integer`);
        parsed = Number(value);
        break;
      case 'float':
        if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value)) throw new ConfigError(`invalid value "${value}" for --${f.name}: must be a number`);
        parsed = Number(value);
        break;
      case 'bool':
        if (!['true', 'false', '1', '0'].includes(value)) throw new ConfigError(`invalid value "${value}" for --${f.name}: must be true or false`);
        parsed = value === 'true' || value === '1';
        break;
      case 'duration':
        parsed = parseDuration(value);
        key = `${key}Ms`;
        break;
      case 'list':
        parsed = value.split(',').map((s) => s.trim()).filter(Boolean);
        break;
      default:
        parsed = value;
    }
    out[key] = parsed;
  }
  const workers = resolveWorkers(out.workers as string, availableParallelism(), out.databaseMaxConnections as number);
  if ('problem' in workers) throw new ConfigError(workers.problem);
  out.workers = workers.workers;
  const config = out as unknown as Config;
  givenFlags.set(config, given);
  if (config.databaseListenUrl && !config.databaseUrl) {
    throw new ConfigError('--database-listen-url needs --database-url: the embedded PostgreSQL is always reached directly');
  }
  if (config.requestTimeoutMs <= 0) throw new ConfigError('--request-timeout must be greater than zero');
  if (config.databaseHealthcheckTimeoutMs <= 0) throw new ConfigError('--database-healthcheck-timeout must be greater than zero');
  if (config.securePort > 65535) throw new ConfigError(`--secure-port must be between 0 and 65535 (0 picks a free port)`);
  // Upstream's ServerRunOptions.Validate, in its words.
  if (config.goawayChance < 0 || config.goawayChance > 0.02) throw new ConfigError('--goaway-chance can not be less than 0 or greater than 0.02');
  try {
    parseWatchCacheSizes(config.watchCacheSizes);
  } catch (err) {
    throw new ConfigError(`--watch-cache-sizes: ${(err as Error).message}`);
  }
  checkAuthConfig(config);
  try {
    parseControllers(config.controllers);
  } catch (err) {
    throw new ConfigError(`--controllers: ${(err as Error).message}`);
  }
  const hiddenMetricsProblem = showHiddenMetricsVersionProblem(config.showHiddenMetricsForVersion);
  if (hiddenMetricsProblem) throw new ConfigError(hiddenMetricsProblem);
  // API priority and fairness shares these seats among its levels: there must be some (upstream's words).
  if (config.enablePriorityAndFairness && config.maxRequestsInflight + config.maxMutatingRequestsInflight <= 0) {
    throw new ConfigError(
      `invalid configuration: MaxRequestsInFlight=${config.maxRequestsInflight} and MaxMutatingRequestsInFlight=${config.maxMutatingRequestsInflight}; they must add up to something positive`,
    );
  }
  const auditProblems = auditFlagProblems(config);
  if (auditProblems.length > 0) throw new ConfigError(auditProblems.length === 1 ? auditProblems[0]! : `[${auditProblems.join(', ')}]`);
  try {
    admissionPluginNames(config.enableAdmissionPlugins, config.disableAdmissionPlugins);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return config;
}

/**
 * The authentication and authorization settings that are wrong on their own, refused at start with
 * kube-apiserver's words where it has them. Files are read later (their contents are checked then).
 */
function checkAuthConfig(config: Config): void {
  // The two ways to configure authorization exclude each other (kube-apiserver's words). A webhook
  // flag counts as given when it differs from its default: the flags' raw form is not kept here.
  const legacyWebhookFlags =
    config.authorizationWebhookConfigFile !== '' ||
    config.authorizationWebhookVersion !== 'v1beta1' ||
    config.authorizationWebhookCacheAuthorizedTtlMs !== 300_000 ||
    config.authorizationWebhookCacheUnauthorizedTtlMs !== 30_000;
  if (config.authorizationConfig && (config.authorizationMode.length > 0 || legacyWebhookFlags)) {
    throw new ConfigError('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  }
  const modes = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'];
  for (const mode of config.authorizationMode) {
    if (!modes.includes(mode)) throw new ConfigError(`--authorization-mode: authorization-mode "${mode}" is not a valid mode (supported: ${modes.join(', ')})`);
  }
  const seen = new Set<string>();
  for (const mode of config.authorizationMode) {
    if (seen.has(mode)) throw new ConfigError(`--authorization-mode: authorization-mode "${mode}" has mentioned multiple times`);
    seen.add(mode);
  }
  if (config.authorizationMode.includes('Webhook') && !config.authorizationWebhookConfigFile) {
    throw new ConfigError('--authorization-mode: authorization-mode Webhook\'s authorization config file not passed');
  }
  if (config.authorizationWebhookConfigFile && !config.authorizationMode.includes('Webhook')) {
    throw new ConfigError('--authorization-webhook-config-file: cannot specify --authorization-webhook-config-file without mode Webhook');
  }
  if (!['v1', 'v1beta1'].includes(config.authorizationWebhookVersion)) {
    throw new ConfigError(`--authorization-webhook-version: invalid version "${config.authorizationWebhookVersion}" (supported: v1, v1beta1)`);
  }
  // Any --oidc-* flag given counts, as upstream's: with the file, for exclusion; without, for completeness.
  const oidcFlagsGiven = FLAGS.some((f) => f.name.startsWith('oidc-') && flagGiven(config, f.name));
  if (config.authenticationConfig && oidcFlagsGiven) {
    throw new ConfigError('authentication-config file and oidc-* flags are mutually exclusive');
  }
  if (!config.authenticationConfig && oidcFlagsGiven && (!config.oidcIssuerUrl || !config.oidcClientId)) {
    throw new ConfigError('oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set');
  }
  if (config.serviceAccountIssuer.length === 0) throw new ConfigError('--service-account-issuer: at least one issuer is required');
  if (config.serviceAccountJwksUri) {
    let scheme = '';
    try {
      scheme = new URL(config.serviceAccountJwksUri).protocol;
    } catch {
      throw new ConfigError(`--service-account-jwks-uri: must be a valid URL, got "${config.serviceAccountJwksUri}"`);
    }
    if (scheme !== 'https:') throw new ConfigError(`--service-account-jwks-uri: requires https scheme, parsed as: ${config.serviceAccountJwksUri}`);
  }
}

/** The authorizers in order: --authorization-mode, or Node,RBAC when neither it nor --authorization-config is given. */
export function authorizationModes(config: Pick<Config, 'authorizationMode' | 'authorizationConfig'>): string[] {
  if (config.authorizationMode.length > 0 || config.authorizationConfig) return config.authorizationMode;
  return ['Node', 'RBAC'];
}

/** Text of `.env.example`: every setting with its default and help. */
export function envExample(): string {
  const lines = ['# Every server setting, as an environment variable (flags of the same name win).', ''];
  for (const f of FLAGS) {
    lines.push(`# --${f.name}: ${f.help}`);
    lines.push(`${f.env}=${f.default}`);
    lines.push('');
  }
  return lines.join('\n');
}
