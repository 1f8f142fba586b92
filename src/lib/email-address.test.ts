import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeEmail } from './email-address.js';

test('an ordinary address is trimmed and lower-cased', () => {
  assert.equal(normalizeEmail('  Ada.Lovelace+dash@Example.co.uk '), 'ada.lovelace+dash@example.co.uk');
  assert.equal(normalizeEmail("o'brien@example.com"), "o'brien@example.com");
});

test('control characters, markup, spaces and non-addresses are refused', () => {
  const refused = [
    'ada\u0000@example.com',
    'ada@example.com\u0000',
    'ada@exa\u0007mple.com',
    'ada\u007f@example.com',
    'ada\u0085@example.com',
    '<script>alert(1)</script>@example.com',
    '"><img src=x onerror=alert(1)>@example.com',
    'ada@<b>example</b>.com',
    'ada@example.com<',
    '"ada"@example.com',
    'ada lovelace@example.com',
    'ada@example',
    'ada@-example.com',
    'not-an-email',
    '@example.com',
    'ada@',
    'ädä@example.com',
    `${'a'.repeat(250)}@example.com`,
  ];
  for (const input of refused) assert.equal(normalizeEmail(input), undefined, JSON.stringify(input));
});
