import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultTimeouts, createUpstreamDispatcher } from '../transport/http-client.js';
import { createChatModelFor } from '../model-factory.js';
import { findPreset, readProviderCredentials } from '../credentials/provider-presets.js';

describe('Bedrock configuration from the environment', () => {
  it('is configured by AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, in us-east-1 unless a region is set', () => {
    assert.equal(readProviderCredentials({ AWS_ACCESS_KEY_ID: 'AKID' }).get('bedrock'), undefined);
    assert.equal(readProviderCredentials({ AWS_SECRET_ACCESS_KEY: 'secret' }).get('bedrock'), undefined);
    assert.deepEqual(readProviderCredentials({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' }).get('bedrock'), {
      apiKey: 'AKID',
      baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
      options: { region: 'us-east-1', secretAccessKey: 'secret' },
    });
    assert.deepEqual(
      readProviderCredentials({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_DEFAULT_REGION: 'eu-central-1', AWS_SESSION_TOKEN: 'token' }).get('bedrock'),
      { apiKey: 'AKID', baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com', options: { region: 'eu-central-1', secretAccessKey: 'secret', sessionToken: 'token' } },
    );
    assert.deepEqual(
      readProviderCredentials({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'us-west-2', AWS_DEFAULT_REGION: 'eu-central-1', BEDROCK_BASE_URL: 'http://127.0.0.1:9' }).get('bedrock'),
      { apiKey: 'AKID', baseUrl: 'http://127.0.0.1:9', options: { region: 'us-west-2', secretAccessKey: 'secret' } },
    );
  });

  it('the model factory builds a Bedrock model from those credentials, and none without the secret', async () => {
    const preset = findPreset('bedrock') ?? assert.fail('no bedrock preset');
    const dispatcher = createUpstreamDispatcher(defaultTimeouts);
    try {
      const http = { dispatcher, timeouts: defaultTimeouts };
      const credentials = readProviderCredentials({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' }).get('bedrock') ?? assert.fail('not configured');
      const model = createChatModelFor(preset, credentials, 'amazon.nova-lite-v1:0', { http });
      assert.equal(model?.provider, 'bedrock');
      assert.equal(model?.modelId, 'amazon.nova-lite-v1:0');
      assert.equal(createChatModelFor(preset, { apiKey: 'AKID', baseUrl: credentials.baseUrl }, 'amazon.nova-lite-v1:0', { http }), undefined);
    } finally {
      await dispatcher.close();
    }
  });
});
