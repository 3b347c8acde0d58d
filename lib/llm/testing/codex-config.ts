import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A CODEX_HOME's config.toml for the real Codex in tests: model "test-model" from one Responses
 * provider, its key read from the environment variable `envKey`; the features that would reach
 * the internet are off.
 */
export function writeCodexConfig(home: string, provider: { id: string; name: string; baseUrl: string; envKey: string; headers?: Record<string, string> }): void {
  const headers = provider.headers ? [`http_headers = { ${Object.entries(provider.headers).map(([name, value]) => `"${name}" = "${value}"`).join(', ')} }`] : [];
  writeFileSync(
    join(home, 'config.toml'),
    [
      'model = "test-model"',
      `model_provider = "${provider.id}"`,
      '',
      `[model_providers.${provider.id}]`,
      `name = "${provider.name}"`,
      `base_url = "${provider.baseUrl}"`,
      'wire_api = "responses"',
      `env_key = "${provider.envKey}"`,
      ...headers,
      '',
      '[features]',
      'plugins = false',
      'remote_plugin = false',
      'remote_models = false',
      '',
    ].join('\n'),
  );
}
