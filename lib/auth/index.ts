export { AuthStore, type AuthStoreOptions, type SignInResult } from './auth-store.js';
export { ApiTokenStore, TOKEN_ID_PATTERN, TOKEN_NAME_MAX_LENGTH, tokenClaimedUserId, type TokenInfo, type TokenBackend, type TokenChange, type TokenRecord } from './api-tokens.js';
export { AuthError, type AuthErrorCode } from './errors.js';
export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password.js';
export { SignInRateLimiter, DEFAULT_SIGN_IN_RULES, decideSignIn, signInKeys, type RateLimitDecision, type RateLimitRule, type SignInLimits, type SignInRules } from './rate-limit.js';
export { API_TOKEN_PREFIX, CLI_TOKEN_PREFIX } from './token-secret.js';
export { ProxyUpstreams, migrateProxyUpstreams, PROXY_UPSTREAMS_FILE, defaultUpstreamUrl, normalizeUpstreamUrl, UPSTREAM_NAME_PATTERN, BUILT_IN_UPSTREAMS, type Upstream, type UpstreamKind, type UpstreamView } from './proxy-upstreams.js';
export { EMAIL_MAX_LENGTH, USER_ID_PATTERN, isUserId, normaliseEmail, UserStore, type PublicUser, type UserRecord, type UserBackend, type UserChange, type UsersFile, DEFAULT_PREFS, type UserPrefs } from './users.js';
export { checkRoot, parseRootsEnv, ProjectRootsFile, migrateProjectRoots, PROJECT_ROOTS_FILE, type ProjectRoot } from './project-roots.js';
