import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { errors } from '../lib/errors.js';

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;
/**
 * zxcvbn's score (0–4) a new password needs. 3 is "safely unguessable: moderate protection from an offline
 * slow-hash attack" (our hashes are scrypt), and what zxcvbn's authors suggest as a floor.
 */
export const MIN_PASSWORD_SCORE = 3;

/** zxcvbn's warning keys in words; its own texts come in language packs we do not ship. */
const WARNINGS: Record<string, string> = {
  straightRow: 'it is a row of keys on the keyboard',
  keyPattern: 'it is a short keyboard pattern',
  simpleRepeat: 'it repeats one character',
  extendedRepeat: 'it repeats a few characters',
  sequences: 'it is a sequence such as abc or 123',
  recentYears: 'it is a recent year',
  dates: 'it is a date',
  topTen: 'it is one of the ten most used passwords',
  topHundred: 'it is one of the hundred most used passwords',
  common: 'it is a common password',
  similarToCommon: 'it is close to a common password',
  wordByItself: 'it is a single word',
  namesByThemselves: 'it is a name',
  commonNames: 'it is a common name',
  userInputs: 'it contains your email address',
  pwned: 'it appeared in a data breach',
};

export interface PasswordRules {
  /**
   * Throws a 400 naming the rule a new password breaks (`param` `password`): its length, or zxcvbn's score
   * against common and breached passwords, keyboard patterns, repeats, and `userInputs` (the email and its parts).
   */
  check(password: string, userInputs: readonly string[]): Promise<void>;
}

/** The words an email gives zxcvbn: the whole address, its local part and the words in it, its domain's labels. */
export function emailWords(email: string): string[] {
  const [local = '', domain = ''] = email.split('@');
  const words = [...local.split(/[^a-z0-9]+/i), ...domain.split('.')].filter((word) => word.length >= 3);
  return [...new Set([email, local, ...words, 'modelport'])];
}

/** The rules, with zxcvbn's dictionaries loaded on the first check (they take about 15 MiB that nothing else needs). */
export function createPasswordRules(): PasswordRules {
  let checker: Promise<ZxcvbnFactory> | undefined;
  const load = async (): Promise<ZxcvbnFactory> => {
    const [{ ZxcvbnFactory }, common] = await Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]);
    return new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  };

  return {
    async check(password, userInputs) {
      if (password.length < MIN_PASSWORD_LENGTH) {
        throw errors.invalidRequest(`The password must have at least ${MIN_PASSWORD_LENGTH} characters.`, 'password', 'password_too_short');
      }
      if (password.length > MAX_PASSWORD_LENGTH) {
        throw errors.invalidRequest(`The password must have at most ${MAX_PASSWORD_LENGTH} characters.`, 'password', 'password_too_long');
      }
      const lowered = password.toLowerCase();
      if (userInputs.some((input) => input.length >= MIN_PASSWORD_LENGTH && lowered.includes(input.toLowerCase()))) {
        throw errors.invalidRequest(`This password is too easy to guess: ${WARNINGS.userInputs}.`, 'password', 'password_too_weak');
      }
      checker ??= load();
      const result = (await checker).check(password, [...userInputs]);
      if (result.score < MIN_PASSWORD_SCORE) {
        const reason = (result.feedback.warning !== null ? WARNINGS[result.feedback.warning] : undefined) ?? 'it follows a pattern attackers try early';
        throw errors.invalidRequest(
          `This password is too easy to guess: ${reason}. Use a longer phrase of unrelated words.`,
          'password',
          'password_too_weak',
        );
      }
    },
  };
}
