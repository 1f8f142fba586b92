import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../lib/errors.js';
import { createPasswordRules, emailWords } from './password-rules.js';

const rules = createPasswordRules();
const email = 'ada.lovelace@example.com';

async function refusal(password: string): Promise<GatewayError> {
  try {
    await rules.check(password, emailWords(email));
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(password)}`);
}

test('the reported weak passwords are refused, each naming its rule', async () => {
  const repeated = await refusal('aaaaaaaaaa');
  assert.equal(repeated.status, 400);
  assert.equal(repeated.param, 'password');
  assert.equal(repeated.code, 'password_too_weak');
  assert.match(repeated.message, /repeats one character/);
  assert.match((await refusal(' '.repeat(10))).message, /repeats one character/);
  const itself = await refusal(email);
  assert.equal(itself.code, 'password_too_weak');
  assert.match(itself.message, /contains your email address/);
  assert.match((await refusal('Ada.Lovelace@Example.com!')).message, /contains your email address/);
});

test('common, patterned and short passwords are refused; long and unusual ones pass', async () => {
  assert.match((await refusal('qwertyuiop')).message, /hundred most used|row of keys/);
  assert.equal((await refusal('password123!')).code, 'password_too_weak');
  assert.match((await refusal('lovelace2024')).message, /contains your email address/);
  assert.equal((await refusal('short')).code, 'password_too_short');
  assert.equal((await refusal('x'.repeat(1025))).code, 'password_too_long');
  await rules.check('a long enough password', emailWords(email));
  await rules.check('correct horse battery staple', emailWords(email));
  await rules.check('Tr0ub4dour&3-violet-kettle', emailWords(email));
});
