import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

describe('config: MODELPORT_USAGE_WRITER', () => {
  it('defaults to the writer thread, takes inline, and refuses anything else', () => {
    assert.equal(loadConfig({}).usageWriter, 'thread');
    assert.equal(loadConfig({ MODELPORT_USAGE_WRITER: 'inline' }).usageWriter, 'inline');
    assert.throws(() => loadConfig({ MODELPORT_USAGE_WRITER: 'threads' }), ConfigError);
  });
});
