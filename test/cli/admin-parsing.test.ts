import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdminInputError, parseSince, parseWholeNumber } from '../../src/admin/admin-service.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');

describe('CLI input rules in admin-service', () => {
  it('parseSince reads durations back from now and ISO 8601 times', () => {
    assert.equal(parseSince('1h', NOW), NOW - 3_600_000);
    assert.equal(parseSince('7d', NOW), NOW - 7 * 86_400_000);
    assert.equal(parseSince('2026-05-31', NOW), Date.parse('2026-05-31T00:00:00Z'));
    assert.equal(parseSince('2026-05-31T10:30:00Z', NOW), Date.parse('2026-05-31T10:30:00Z'));
    assert.equal(parseSince('2026-05-31T10:30:00+02:00', NOW), Date.parse('2026-05-31T08:30:00Z'));
    for (const text of ['yesterday', '1 week', '31/05/2026', '2026-13-45', '']) assert.throws(() => parseSince(text, NOW), AdminInputError, text);
  });

  it('parseWholeNumber accepts only decimal digits', () => {
    assert.equal(parseWholeNumber('60', '--rpm'), 60);
    for (const text of ['1e3', '-5', '2.5', 'ten', '', '0x10']) assert.throws(() => parseWholeNumber(text, '--rpm'), /--rpm must be a whole number/);
  });
});
