import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DetectedServer } from './detect-local.js';

/**
 * Which model chat and titles use, and why none when none: the admin's settings (stored in
 * `data/auth/models.json`, 0600), else the environment (`OPENPROGRAM_LLM_*`), else, when the
 * admin turned detection on, the first local OpenAI-compatible server that answered.
 */
export interface ModelSettings {
  baseUrl: string | null;
  apiKey: string | null;
  model: string | null;
  titleModel: string | null;
  detectLocal: boolean;
}

export const EMPTY_SETTINGS: ModelSettings = { baseUrl: null, apiKey: null, model: null, titleModel: null, detectLocal: false };

export type ModelSource = 'admin' | 'env' | 'local';

export interface ModelChoice {
  source: ModelSource;
  baseUrl: string;
  model: string;
  /** the model for titles: OPENPROGRAM_LLM_TITLE_MODEL or the admin's, else the chat model */
  titleModel: string;
  apiKey: string | null;
}

export type ModelResolution = { choice: ModelChoice; reason: null } | { choice: null; reason: string };

class ModelConfigError extends Error {
  readonly code = 'BAD_REQUEST';
  constructor(message: string) {
    super(message);
    this.name = 'ModelConfigError';
  }
}

/** An http(s) URL without credentials or fragment, trailing slashes dropped. */
export function normalizeBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ModelConfigError(`not a URL: ${JSON.stringify(value)} (expected e.g. http://127.0.0.1:11434/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ModelConfigError('the model URL must start with http:// or https://');
  if (url.username || url.password) throw new ModelConfigError('put the API key in its own field, not in the URL');
  if (url.hash || url.search) throw new ModelConfigError('the model URL takes no query or fragment');
  return url.toString().replace(/\/+$/, '');
}

const clean = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

function fromEnv(env: Readonly<Record<string, string | undefined>>): ModelResolution | null {
  const baseUrl = clean(env['OPENPROGRAM_LLM_BASE_URL']);
  const model = clean(env['OPENPROGRAM_LLM_MODEL']);
  if (!baseUrl && !model) return null;
  if (!baseUrl) return { choice: null, reason: 'OPENPROGRAM_LLM_MODEL is set but OPENPROGRAM_LLM_BASE_URL is not' };
  if (!model) return { choice: null, reason: 'OPENPROGRAM_LLM_BASE_URL is set but OPENPROGRAM_LLM_MODEL is not' };
  return {
    choice: { source: 'env', baseUrl, model, titleModel: clean(env['OPENPROGRAM_LLM_TITLE_MODEL']) ?? model, apiKey: clean(env['OPENPROGRAM_LLM_API_KEY']) },
    reason: null,
  };
}

const HOW_TO_CONFIGURE =
  'set OPENPROGRAM_LLM_BASE_URL and OPENPROGRAM_LLM_MODEL when starting the server, or ask an admin to set a model (or turn on local detection) on the Admin page';

/**
 * The rule, pure: admin settings win when complete; an incomplete one says what is missing.
 * `detected` is what local detection found (null: detection off or not run).
 */
export function resolveModel(settings: ModelSettings, env: Readonly<Record<string, string | undefined>>, detected: DetectedServer[] | null): ModelResolution {
  if (settings.baseUrl || settings.model) {
    if (!settings.baseUrl) return { choice: null, reason: 'the admin set a model name but no server URL' };
    if (!settings.model) return { choice: null, reason: 'the admin set a server URL but no model name' };
    return {
      choice: { source: 'admin', baseUrl: settings.baseUrl, model: settings.model, titleModel: settings.titleModel ?? settings.model, apiKey: settings.apiKey },
      reason: null,
    };
  }
  const env_ = fromEnv(env);
  if (env_?.choice) return env_;
  if (settings.detectLocal) {
    const server = (detected ?? []).find((candidate) => candidate.models.length > 0);
    if (server) {
      const model = server.models[0]!;
      return { choice: { source: 'local', baseUrl: server.baseUrl, model, titleModel: model, apiKey: null }, reason: null };
    }
    const none = 'local detection is on, but no OpenAI-compatible server with a model answered on 127.0.0.1 (ports 11434, 1234, 8080, 8000)';
    return { choice: null, reason: env_ ? `${env_.reason}; ${none}` : none };
  }
  if (env_) return env_;
  return { choice: null, reason: `no model is configured: ${HOW_TO_CONFIGURE}` };
}

/** data/auth/models.json: the admin's settings; the API key is kept here and never sent back. */
export class ModelSettingsFile {
  constructor(readonly path: string) {}

  read(): ModelSettings {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch {
      return { ...EMPTY_SETTINGS };
    }
    const record = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    return {
      baseUrl: clean(record['baseUrl']),
      apiKey: clean(record['apiKey']),
      model: clean(record['model']),
      titleModel: clean(record['titleModel']),
      detectLocal: record['detectLocal'] === true,
    };
  }

  /** Fields given replace the stored ones; null clears one; an omitted apiKey keeps the stored key. */
  update(patch: Partial<ModelSettings>): ModelSettings {
    const current = this.read();
    const next: ModelSettings = { ...current };
    if (patch.baseUrl !== undefined) next.baseUrl = patch.baseUrl === null || patch.baseUrl.trim() === '' ? null : normalizeBaseUrl(patch.baseUrl);
    for (const key of ['apiKey', 'model', 'titleModel'] as const) {
      if (patch[key] !== undefined) next[key] = clean(patch[key]);
    }
    if (patch.detectLocal !== undefined) next.detectLocal = patch.detectLocal === true;
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, this.path);
    return next;
  }
}
