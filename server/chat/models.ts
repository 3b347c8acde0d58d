import { join } from 'node:path';
import { createChatClient, timeoutFromEnv, type ChatModel } from '@/lib/llm/chat-client';
import { detectLocalServers, type DetectedServer } from '@/lib/llm/detect-local';
import { ModelSettingsFile, resolveModel, type ModelChoice, type ModelSettings, type ModelSource } from '@/lib/llm/model-config';
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

const DETECT_TTL_MS = 15_000;

/**
 * The process's model: resolved on every use (settings file, environment, local detection), so
 * an admin's change applies to the next turn without a restart. Clients are reused per config.
 */
export class ModelService {
  readonly file: ModelSettingsFile;
  private detected: { at: number; servers: DetectedServer[] } | null = null;
  private clients = new Map<string, ChatModel>();

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

  async update(patch: ModelSettingsPatch): Promise<ModelAdminView> {
    this.file.update(patch);
    this.clients.clear();
    if (patch.detectLocal) this.detected = null;
    return this.adminView();
  }

  /** The chat model now, or the reason there is none. */
  async chatModel(): Promise<{ model: ChatModel; choice: ModelChoice } | { model: null; reason: string }> {
    const { choice, reason } = await this.resolve();
    if (!choice) return { model: null, reason: reason ?? 'no model is configured' };
    return { model: this.client(choice, choice.model), choice };
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
