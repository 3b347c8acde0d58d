import { join } from 'node:path';
import { createChatClient, timeoutFromEnv, type ChatModel } from '@/lib/llm/chat-client';
import { detectLocalServers, type DetectedServer } from '@/lib/llm/detect-local';
import { ModelSettingsFile, normalizeBaseUrl, resolveModel, type ModelChoice, type ModelSettings, type ModelSource } from '@/lib/llm/model-config';
import { fetchModelList, type ModelListResult } from '@/lib/llm/model-list';
import { titleModelFrom } from './title-model';
import { PreconditionError, type TitleModel } from '@/lib/store/index';

/** What Settings shows: the model in use, or exactly why there is none. Never the key. */
export interface ModelStatus {
  configured: boolean;
  source: ModelSource | null;
  baseUrl: string | null;
  model: string | null;
  titleModel: string | null;
  reason: string | null;
}

/** What the admin sees and edits: the stored settings (key as set / not set) and the environment's. */
export interface ModelAdminView {
  settings: Omit<ModelSettings, 'apiKey'> & { apiKeySet: boolean };
  env: { baseUrl: string | null; model: string | null; titleModel: string | null; apiKeySet: boolean };
  status: ModelStatus;
}

export type ModelSettingsPatch = Partial<ModelSettings>;

/** The test a save runs: does the server answer, and does it serve the model? */
export type ConnectionCheck =
  | { ok: true; baseUrl: string; models: string[]; modelListed: boolean }
  | { ok: false; baseUrl: string | null; error: string };

/** What a person may pick for a chat: the configured model first, then the others its server lists. */
export interface ChatModelChoices {
  defaultModel: string | null;
  models: string[];
}

const MODEL_LIST_TTL_MS = 60_000;

const DETECT_TTL_MS = 15_000;

/**
 * The process's model: resolved on every use (settings file, environment, local detection), so
 * an admin's change applies to the next turn without a restart. Clients are reused per config.
 */
export class ModelService {
  readonly file: ModelSettingsFile;
  private detected: { at: number; servers: DetectedServer[] } | null = null;
  private clients = new Map<string, ChatModel>();
  private listed: { key: string; at: number; result: ModelListResult } | null = null;

  constructor(authDir: string, private readonly env: Readonly<Record<string, string | undefined>> = process.env) {
    this.file = new ModelSettingsFile(join(authDir, 'models.json'));
  }

  async resolve(): Promise<{ choice: ModelChoice | null; reason: string | null }> {
    const settings = this.file.read();
    const detected = settings.detectLocal ? await this.detect() : null;
    return resolveModel(settings, this.env, detected);
  }

  async detect(fresh = false): Promise<DetectedServer[]> {
    if (!fresh && this.detected && Date.now() - this.detected.at < DETECT_TTL_MS) return this.detected.servers;
    const servers = await detectLocalServers();
    this.detected = { at: Date.now(), servers };
    return servers;
  }

  async status(): Promise<ModelStatus> {
    const { choice, reason } = await this.resolve();
    return {
      configured: choice !== null,
      source: choice?.source ?? null,
      baseUrl: choice?.baseUrl ?? null,
      model: choice?.model ?? null,
      titleModel: choice?.titleModel ?? null,
      reason,
    };
  }

  async adminView(): Promise<ModelAdminView> {
    const { apiKey, ...settings } = this.file.read();
    const env = this.env;
    const value = (key: string) => (env[key] && env[key]!.trim() !== '' ? env[key]!.trim() : null);
    return {
      settings: { ...settings, apiKeySet: apiKey !== null },
      env: {
        baseUrl: value('OPENPROGRAM_LLM_BASE_URL'),
        model: value('OPENPROGRAM_LLM_MODEL'),
        titleModel: value('OPENPROGRAM_LLM_TITLE_MODEL'),
        apiKeySet: value('OPENPROGRAM_LLM_API_KEY') !== null,
      },
      status: await this.status(),
    };
  }

  /** Saves, then tests what is now in use: a URL that does not answer is said, not hidden behind "Model in use". */
  async update(patch: ModelSettingsPatch): Promise<ModelAdminView & { connection: ConnectionCheck | null }> {
    this.file.update(patch);
    this.clients.clear();
    this.listed = null;
    if (patch.detectLocal) this.detected = null;
    const view = await this.adminView();
    return { ...view, connection: await this.checkConnection() };
  }

  /** GET /models of the model server in use (null when none is configured). */
  async checkConnection(): Promise<ConnectionCheck | null> {
    const { choice } = await this.resolve();
    if (!choice) return null;
    const result = await this.listOf(choice.baseUrl, choice.apiKey, true);
    if (!result.ok) return { ok: false, baseUrl: choice.baseUrl, error: result.error };
    return { ok: true, baseUrl: choice.baseUrl, models: result.models, modelListed: result.models.includes(choice.model) };
  }

  /**
   * The models a server lists, for the admin's model field: `baseUrl` as typed (not saved yet),
   * else the one in use. The stored key goes only to the URL it was stored for.
   */
  async serverModels(baseUrl?: string | null): Promise<ModelListResult> {
    const stored = this.file.read();
    const { choice } = await this.resolve();
    const url = baseUrl ? normalizeBaseUrl(baseUrl) : choice?.baseUrl ?? null;
    if (!url) return { ok: false, error: 'no server URL is set' };
    const key = url === stored.baseUrl ? stored.apiKey : url === choice?.baseUrl ? choice.apiKey : null;
    return this.listOf(url, key, true);
  }

  /** What a chat may run on: the configured model, then what its server lists (cached a minute). */
  async chatChoices(): Promise<ChatModelChoices> {
    const { choice } = await this.resolve();
    if (!choice) return { defaultModel: null, models: [] };
    const listed = await this.listOf(choice.baseUrl, choice.apiKey, false);
    const others = listed.ok ? listed.models.filter((id) => id !== choice.model && id !== choice.titleModel) : [];
    return { defaultModel: choice.model, models: [choice.model, ...others] };
  }

  /**
   * The chat model now, or the reason there is none. `requested` (a chat's pick) is used when it
   * is one of chatChoices, else the configured one: a pick the server stopped serving never fails a turn.
   */
  async chatModel(requested?: string | null): Promise<{ model: ChatModel; choice: ModelChoice } | { model: null; reason: string }> {
    const { choice, reason } = await this.resolve();
    if (!choice) return { model: null, reason: reason ?? 'no model is configured' };
    const picked = requested && requested !== choice.model && (await this.chatChoices()).models.includes(requested) ? requested : choice.model;
    return { model: this.client(choice, picked), choice };
  }

  private async listOf(baseUrl: string, apiKey: string | null, fresh: boolean): Promise<ModelListResult> {
    const key = JSON.stringify([baseUrl, apiKey]);
    if (!fresh && this.listed && this.listed.key === key && Date.now() - this.listed.at < MODEL_LIST_TTL_MS) return this.listed.result;
    const result = await fetchModelList(baseUrl, { apiKey });
    this.listed = { key, at: Date.now(), result };
    return result;
  }

  /** For the store's title policy: whichever title model is configured at the moment of the call. */
  readonly titleModel: TitleModel = {
    complete: async (request) => {
      const { choice } = await this.resolve();
      if (!choice) throw new PreconditionError('no model is configured, so titles cannot be generated');
      return titleModelFrom(this.client(choice, choice.titleModel)).complete(request);
    },
  };

  private client(choice: ModelChoice, model: string): ChatModel {
    const key = JSON.stringify([choice.baseUrl, model, choice.apiKey]);
    let client = this.clients.get(key);
    if (!client) {
      client = createChatClient({ baseUrl: choice.baseUrl, model, apiKey: choice.apiKey ?? undefined, timeoutMs: timeoutFromEnv(this.env) });
      this.clients.set(key, client);
    }
    return client;
  }
}
