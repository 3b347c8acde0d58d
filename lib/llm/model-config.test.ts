import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_SETTINGS, ModelSettingsFile, normalizeBaseUrl, resolveModel } from './model-config.js';
import { detectLocalServers } from './detect-local.js';
import { startModelServer } from './testing/model-server.js';

const ENV = { OPENPROGRAM_LLM_BASE_URL: 'http://env/v1', OPENPROGRAM_LLM_MODEL: 'env-model' };
const local = [{ name: 'Ollama', port: 11434, baseUrl: 'http://127.0.0.1:11434/v1', models: ['llama3'] }];

describe('which model is used, or why none', () => {
  it('takes the admin settings first, then the environment, then a detected local server', () => {
    const admin = { ...EMPTY_SETTINGS, baseUrl: 'http://admin/v1', model: 'admin-model', apiKey: 'k', detectLocal: true };
    expect(resolveModel(admin, ENV, local).choice).toEqual({ source: 'admin', baseUrl: 'http://admin/v1', model: 'admin-model', titleModel: 'admin-model', apiKey: 'k' });
    expect(resolveModel({ ...EMPTY_SETTINGS, detectLocal: true }, ENV, local).choice).toMatchObject({ source: 'env', model: 'env-model', titleModel: 'env-model', apiKey: null });
    expect(resolveModel({ ...EMPTY_SETTINGS, detectLocal: true }, {}, local).choice).toMatchObject({ source: 'local', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3' });
  });

  it('uses a separate title model when one is given', () => {
    expect(resolveModel(EMPTY_SETTINGS, { ...ENV, OPENPROGRAM_LLM_TITLE_MODEL: 'small' }, null).choice?.titleModel).toBe('small');
    expect(resolveModel({ ...EMPTY_SETTINGS, baseUrl: 'http://a/v1', model: 'm', titleModel: 't' }, {}, null).choice?.titleModel).toBe('t');
  });

  it('says exactly what is missing', () => {
    expect(resolveModel(EMPTY_SETTINGS, {}, null).reason).toMatch(/^no model is configured: set OPENPROGRAM_LLM_BASE_URL and OPENPROGRAM_LLM_MODEL/);
    expect(resolveModel(EMPTY_SETTINGS, { OPENPROGRAM_LLM_BASE_URL: 'http://x/v1' }, null).reason).toBe('OPENPROGRAM_LLM_BASE_URL is set but OPENPROGRAM_LLM_MODEL is not');
    expect(resolveModel({ ...EMPTY_SETTINGS, model: 'm' }, ENV, null).reason).toBe('the admin set a model name but no server URL');
    expect(resolveModel({ ...EMPTY_SETTINGS, detectLocal: true }, {}, []).reason).toMatch(/^local detection is on, but no OpenAI-compatible server/);
  });

  it('accepts only plain http(s) URLs', () => {
    expect(normalizeBaseUrl(' http://127.0.0.1:11434/v1/ ')).toBe('http://127.0.0.1:11434/v1');
    expect(() => normalizeBaseUrl('ftp://x')).toThrow(/http/);
    expect(() => normalizeBaseUrl('http://u:p@x/v1')).toThrow(/API key/);
    expect(() => normalizeBaseUrl('nope')).toThrow(/not a URL/);
  });
});

describe('the settings file', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is 0600, keeps the key when it is not given, and clears fields with null', () => {
    dir = mkdtempSync(join(tmpdir(), 'em-models-'));
    const file = new ModelSettingsFile(join(dir, 'auth', 'models.json'));
    expect(file.read()).toEqual(EMPTY_SETTINGS);
    file.update({ baseUrl: 'http://x/v1/', apiKey: 'secret', model: 'm' });
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    expect(file.update({ model: 'n' })).toEqual({ ...EMPTY_SETTINGS, baseUrl: 'http://x/v1', apiKey: 'secret', model: 'n' });
    expect(file.update({ apiKey: null, baseUrl: null })).toEqual({ ...EMPTY_SETTINGS, model: 'n' });
  });
});

describe('local detection', () => {
  it('lists the models of a server that answers on loopback and skips ports that do not', async () => {
    const server = await startModelServer(0, '127.0.0.1', { models: ['m1', 'm2'] });
    const port = Number(new URL(server.url).port);
    try {
      // A generous timeout: the machine may be busy; a closed port answers at once anyway.
      const found = await detectLocalServers([{ name: 'Test', port }, { name: 'Closed', port: 9 }], 5_000);
      expect(found).toEqual([{ name: 'Test', port, baseUrl: `http://127.0.0.1:${port}/v1`, models: ['m1', 'm2'] }]);
    } finally {
      await server.close();
    }
  });
});
