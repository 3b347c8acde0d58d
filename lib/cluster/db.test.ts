import { describe, expect, it } from 'vitest';
import { clusterConfigFromEnv } from './db.js';

describe('clusterConfigFromEnv', () => {
  const base = { OPENPROGRAM_CLUSTER_DB: 'postgres://em@db/entity_memory', OPENPROGRAM_INSTANCE_ID: 'node-a', OPENPROGRAM_INSTANCE_URL: 'http://10.0.0.11:3000/' };

  it('is off without OPENPROGRAM_CLUSTER_DB: the embedded default', () => {
    expect(clusterConfigFromEnv({})).toBeNull();
    expect(clusterConfigFromEnv({ OPENPROGRAM_CLUSTER_DB: '  ' })).toBeNull();
  });

  it('reads the instance, its address (an origin) and its weight', () => {
    expect(clusterConfigFromEnv(base)).toEqual({ databaseUrl: base.OPENPROGRAM_CLUSTER_DB, instanceId: 'node-a', instanceUrl: 'http://10.0.0.11:3000', weight: null });
    expect(clusterConfigFromEnv({ ...base, OPENPROGRAM_INSTANCE_WEIGHT: '3' })?.weight).toBe(3);
  });

  it('says what is missing or wrong', () => {
    expect(() => clusterConfigFromEnv({ ...base, OPENPROGRAM_CLUSTER_DB: 'mysql://x' })).toThrow(/postgres:\/\//);
    expect(() => clusterConfigFromEnv({ ...base, OPENPROGRAM_INSTANCE_ID: '' })).toThrow(/OPENPROGRAM_INSTANCE_ID must be set/);
    expect(() => clusterConfigFromEnv({ ...base, OPENPROGRAM_INSTANCE_ID: 'Node A' })).toThrow(/lower-case/);
    expect(() => clusterConfigFromEnv({ ...base, OPENPROGRAM_INSTANCE_URL: 'nowhere' })).toThrow(/OPENPROGRAM_INSTANCE_URL must be set/);
    expect(() => clusterConfigFromEnv({ ...base, OPENPROGRAM_INSTANCE_URL: 'ftp://10.0.0.1' })).toThrow(/http/);
    expect(() => clusterConfigFromEnv({ ...base, OPENPROGRAM_INSTANCE_WEIGHT: '-1' })).toThrow(/0 to 1000/);
    expect(() => clusterConfigFromEnv({ ...base, OPENPROGRAM_INSTANCE_WEIGHT: '1.5' })).toThrow(/integer/);
  });
});
