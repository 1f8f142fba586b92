import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { MMLU_DOMAINS, mmluDomainOf, mmluSubjects } from './domains.js';

const MMLU = fileURLToPath(new URL('../../../../shared/data/routing/mmlu.jsonl', import.meta.url));

describe('MMLU domains', () => {
  it('puts each of the 57 subjects in exactly one domain', () => {
    const subjects = MMLU_DOMAINS.flatMap((domain) => mmluSubjects(domain));
    assert.equal(subjects.length, 57);
    assert.equal(new Set(subjects).size, 57);
    for (const domain of MMLU_DOMAINS) for (const subject of mmluSubjects(domain)) assert.equal(mmluDomainOf(subject), domain);
    assert.equal(mmluDomainOf('cooking'), undefined);
  });

  it('maps every subject of the training data to a domain', { skip: existsSync(MMLU) ? false : `${MMLU} is not here` }, () => {
    const seen = new Set<string>();
    for (const line of readFileSync(MMLU, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      seen.add((JSON.parse(line) as { subject: string }).subject);
    }
    assert.equal(seen.size, 57);
    const unmapped = [...seen].filter((subject) => mmluDomainOf(subject) === undefined);
    assert.deepEqual(unmapped, []);
  });
});
