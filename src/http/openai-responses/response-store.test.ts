import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { migrateToLatest, openStorage, type Storage } from '../../storage/database.js';
import { createResponsesRepository, type ResponsesRepository } from '../../storage/responses-repository.js';
import { createResponseStore, type ResponseStore } from './response-store.js';

const DAY = 86_400_000;
const response = (id: string, text: string) => ({ id, object: 'response', output: [{ type: 'message', content: [{ type: 'output_text', text }] }] });
const items = [{ id: 'msg_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi ünïcode' }] }];

/** The store over the real repository, on every dialect (SQLite always; Postgres when it answers). */
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`stored responses on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let storage: Storage;
    let repository: ResponsesRepository;
    let clock = 1_800_000_000_000;
    const errors: string[] = [];
    const storeWith = (maxBytes: number, repo: Parameters<typeof createResponseStore>[0] = repository): ResponseStore =>
      createResponseStore(repo, { retentionMs: 30 * DAY, maxBytes, now: () => clock, sweepEveryMs: 0, onError: (_error, action) => errors.push(action) });

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      storage = openStorage(database.url);
      await migrateToLatest(storage);
      repository = createResponsesRepository(storage.db);
    });
    after(async () => {
      if (database === undefined) return;
      await storage.close();
      await database.drop();
    });

    it('keeps a response for its owner only, with its size; deletes it once', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const store = storeWith(1_000_000);
      assert.equal(await store.save({ id: 'resp_a', ownerId: 'usr_1', keyId: 'key_1', response: response('resp_a', 'Hello'), inputItems: items }), 'stored');
      assert.deepEqual(await store.load('resp_a', 'usr_1'), { response: response('resp_a', 'Hello'), inputItems: items });
      assert.equal(await store.load('resp_a', 'usr_2'), undefined, "another owner's id is as good as absent");
      const record = await repository.find('resp_a', 'usr_1');
      assert.equal(record?.keyId, 'key_1');
      assert.equal(record?.createdAt, clock);
      assert.equal(record?.expiresAt, clock + 30 * DAY);
      assert.equal(record?.sizeBytes, Buffer.byteLength(JSON.stringify(response('resp_a', 'Hello'))) + Buffer.byteLength(JSON.stringify(items)));
      assert.equal(await store.remove('resp_a', 'usr_2'), false);
      assert.equal(await store.remove('resp_a', 'usr_1'), true);
      assert.equal(await store.remove('resp_a', 'usr_1'), false);
      assert.equal(await store.load('resp_a', 'usr_1'), undefined);
    });

    it('a response over the size limit is not stored; 0 stores nothing', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const size = Buffer.byteLength(JSON.stringify(response('resp_b', 'x'))) + Buffer.byteLength(JSON.stringify(items));
      assert.equal(await storeWith(size - 1).save({ id: 'resp_b', ownerId: 'usr_1', keyId: undefined, response: response('resp_b', 'x'), inputItems: items }), 'too_large');
      assert.equal(await storeWith(0).save({ id: 'resp_b', ownerId: 'usr_1', keyId: undefined, response: response('resp_b', 'x'), inputItems: items }), 'disabled');
      assert.equal(await repository.find('resp_b', 'usr_1'), undefined);
      assert.equal(await storeWith(size).save({ id: 'resp_b', ownerId: 'usr_1', keyId: undefined, response: response('resp_b', 'x'), inputItems: items }), 'stored');
    });

    it('an expired response is gone when read (and deleted), and the sweep deletes the rest', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const store = storeWith(1_000_000);
      for (const id of ['resp_c', 'resp_d', 'resp_e']) await store.save({ id, ownerId: 'usr_1', keyId: undefined, response: response(id, id), inputItems: [] });
      clock += 10 * DAY;
      await store.save({ id: 'resp_young', ownerId: 'usr_1', keyId: undefined, response: response('resp_young', 'y'), inputItems: [] });
      clock += 20 * DAY;
      assert.equal(await store.load('resp_c', 'usr_1'), undefined, 'expired at 30 days');
      for (let tries = 0; tries < 100 && (await repository.find('resp_c', 'usr_1')) !== undefined; tries += 1) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(await repository.find('resp_c', 'usr_1'), undefined, 'deleted when read');
      assert.equal(await store.remove('resp_d', 'usr_1'), false, 'an expired response cannot be deleted as if it were there');
      // Left expired: resp_e, and resp_b of the test before.
      assert.equal(await store.sweep(), 2, 'the sweep deletes what is left expired');
      assert.equal(await repository.find('resp_e', 'usr_1'), undefined);
      assert.equal(await repository.find('resp_b', 'usr_1'), undefined);
      assert.ok((await store.load('resp_young', 'usr_1')) !== undefined, 'a younger one stays');
    });

    it('a storage failure is an outcome, reported, not an exception', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const broken = { ...repository, insert: async () => Promise.reject(new Error('disk full')) };
      errors.length = 0;
      assert.equal(await storeWith(1_000_000, broken).save({ id: 'resp_f', ownerId: 'usr_1', keyId: undefined, response: response('resp_f', 'f'), inputItems: [] }), 'failed');
      assert.deepEqual(errors, ['storing a response']);
    });
  });
}
