import type { Redis } from 'ioredis';
import type { WindowAdmission, WindowCheck, WindowEntry, WindowResult, WindowStore } from './window-store.js';

/**
 * The sliding log in Redis, shared by every instance: per subject a sorted set
 * (member = entry id, score = admission time in ms), a hash holding the weights
 * that are not 1, and a running total (a hash: `n` entries weighing `w` in all),
 * so an admission costs O(1) plus the entries that left the window, however busy
 * the subject is. One Lua script checks every subject and adds the entry to all
 * of them or to none, atomically. rate-limiter-flexible (used before) only
 * offers fixed windows and buckets; see docs/decisions.md.
 */

/**
 * The subject's total weight, from its running total when that still counts the
 * log's entries; otherwise (first use, an evicted total, or entries written by an
 * instance of an older version, which kept no total) summed once from the log.
 */
const TOTAL = `
local function total(log, weights, sums)
  local count = redis.call('ZCARD', log)
  local kept = redis.call('HMGET', sums, 'n', 'w')
  if kept[1] and tonumber(kept[1]) == count then return tonumber(kept[2]) end
  local used = count - redis.call('HLEN', weights)
  for _, value in ipairs(redis.call('HVALS', weights)) do used = used + tonumber(value) end
  return used
end
-- The score of the entry whose expiry frees \`need\` weight (nil if the log holds less), oldest first: one ZRANGE by rank when every entry
-- weighs 1 (no weights hash), else pages of 128 entries with one HMGET each, read only as far as needed.
local function wait_for(log, weights, need)
  if redis.call('EXISTS', weights) == 0 then
    return tonumber(redis.call('ZRANGE', log, need - 1, need - 1, 'WITHSCORES')[2])
  end
  local freed = 0
  local start = 0
  while true do
    local entries = redis.call('ZRANGE', log, start, start + 127, 'WITHSCORES')
    if #entries == 0 then return nil end
    local members = {}
    for j = 1, #entries, 2 do members[#members + 1] = entries[j] end
    local found = redis.call('HMGET', weights, unpack(members))
    for k = 1, #members do
      freed = freed + tonumber(found[k] or '1')
      if freed >= need then return tonumber(entries[2 * k]) end
    end
    start = start + 128
  end
end
local function keep(log, sums, used)
  redis.call('HSET', sums, 'n', redis.call('ZCARD', log), 'w', used)
  local ttl = redis.call('PTTL', log)
  if ttl > 0 then redis.call('PEXPIRE', sums, ttl) else redis.call('DEL', sums) end
end
`;

const ADMIT = `${TOTAL}
local now = tonumber(ARGV[1])
local id = ARGV[2]
local count = #KEYS / 3
local out = {}
local totals = {}
local allowed = 1
for i = 1, count do
  local log = KEYS[3 * i - 2]
  local weights = KEYS[3 * i - 1]
  local sums = KEYS[3 * i]
  local limit = tonumber(ARGV[3 * i])
  local weight = tonumber(ARGV[3 * i + 1])
  local window = tonumber(ARGV[3 * i + 2])
  local used = total(log, weights, sums)
  local expired = redis.call('ZRANGEBYSCORE', log, '-inf', now - window)
  for _, member in ipairs(expired) do
    used = used - tonumber(redis.call('HGET', weights, member) or '1')
    redis.call('HDEL', weights, member)
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', log, '-inf', now - window) end
  keep(log, sums, used)
  totals[i] = used
  local retry = 0
  local reset = 0
  local newest = redis.call('ZRANGE', log, -1, -1, 'WITHSCORES')
  if #newest > 0 then reset = tonumber(newest[2]) + window - now end
  if used + weight > limit then
    allowed = 0
    retry = -1
    if weight <= limit then
      -- A log shorter than its total (never expected) waits for the newest entry, as the reset does.
      local at = wait_for(log, weights, used + weight - limit)
      if at then retry = at + window - now else retry = reset end
    end
  end
  out[#out + 1] = tostring(used)
  out[#out + 1] = tostring(retry)
  out[#out + 1] = tostring(reset)
end
if allowed == 1 then
  for i = 1, count do
    local log = KEYS[3 * i - 2]
    local weights = KEYS[3 * i - 1]
    local sums = KEYS[3 * i]
    local weight = tonumber(ARGV[3 * i + 1])
    local window = tonumber(ARGV[3 * i + 2])
    local old = redis.call('ZSCORE', log, id)
    if old then totals[i] = totals[i] - tonumber(redis.call('HGET', weights, id) or '1') end
    redis.call('ZADD', log, now, id)
    if weight ~= 1 then redis.call('HSET', weights, id, weight) else redis.call('HDEL', weights, id) end
    redis.call('PEXPIRE', log, window)
    redis.call('PEXPIRE', weights, window)
    keep(log, sums, totals[i] + weight)
  end
end
table.insert(out, 1, allowed)
return out
`;

/** Sets an entry's weight if it is still in the log. */
const ADJUST = `${TOTAL}
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  local used = total(KEYS[1], KEYS[2], KEYS[3])
  used = used - tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '1') + tonumber(ARGV[2])
  if tonumber(ARGV[2]) == 1 then redis.call('HDEL', KEYS[2], ARGV[1]) else redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
  keep(KEYS[1], KEYS[3], used)
end
return 1
`;

/** Takes an entry out of every subject's log it is in (KEYS: log, weights, total per subject). */
const RELEASE = `${TOTAL}
for i = 1, #KEYS / 3 do
  local log = KEYS[3 * i - 2]
  local weights = KEYS[3 * i - 1]
  local sums = KEYS[3 * i]
  if redis.call('ZSCORE', log, ARGV[1]) then
    local used = total(log, weights, sums) - tonumber(redis.call('HGET', weights, ARGV[1]) or '1')
    redis.call('ZREM', log, ARGV[1])
    redis.call('HDEL', weights, ARGV[1])
    keep(log, sums, used)
  end
end
return 1
`;

/** Puts back an entry an instance remembers (after Redis lost it, or was unreachable), unless it already left the window. */
const REPLAY = `${TOTAL}
local now = tonumber(ARGV[4])
local at = tonumber(ARGV[2])
local window = tonumber(ARGV[5])
if at <= now - window then return 0 end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
local used = total(KEYS[1], KEYS[2], KEYS[3]) + tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], at, ARGV[1])
if tonumber(ARGV[3]) ~= 1 then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
local ttl = math.floor(at + window - now)
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
keep(KEYS[1], KEYS[3], used)
return 1
`;

interface SlidingLogCommands {
  modelportAdmit(...args: Array<string | number>): Promise<Array<string | number>>;
  modelportAdjust(log: string, weights: string, sums: string, id: string, weight: number): Promise<number>;
  modelportRelease(...args: Array<string | number>): Promise<number>;
  modelportReplay(log: string, weights: string, sums: string, id: string, at: number, weight: number, now: number, windowMs: number): Promise<number>;
}

/** Every operation is a round trip to Redis: always a promise. */
export interface RedisWindowStore extends WindowStore {
  admit(id: string, checks: readonly WindowCheck[], now: number): Promise<WindowAdmission>;
  release(id: string, subjects: readonly string[]): Promise<void>;
  adjust(id: string, subject: string, weight: number): Promise<void>;
  /** Puts this instance's remembered entries back (idempotent: same ids). */
  replay(entries: readonly WindowEntry[], now: number): Promise<void>;
}

/**
 * Times are the instances' own clocks (`now` passed in), so instances must keep
 * their clocks in sync (NTP): a skew of s ms lengthens or shortens the window by s.
 * Not for Redis Cluster: one admission touches several keys.
 */
export function createRedisWindowStore(redis: Redis, prefix: string): RedisWindowStore {
  const client = redis as Redis & SlidingLogCommands;
  if (typeof client.modelportAdmit !== 'function') {
    redis.defineCommand('modelportAdmit', { lua: ADMIT });
    redis.defineCommand('modelportAdjust', { numberOfKeys: 3, lua: ADJUST });
    redis.defineCommand('modelportRelease', { lua: RELEASE });
    redis.defineCommand('modelportReplay', { numberOfKeys: 3, lua: REPLAY });
  }
  const logKey = (subject: string) => `${prefix}rl:{${subject}}`;
  const weightsKey = (subject: string) => `${prefix}rlw:{${subject}}`;
  const totalKey = (subject: string) => `${prefix}rls:{${subject}}`;
  const subjectKeys = (subject: string) => [logKey(subject), weightsKey(subject), totalKey(subject)];

  return {
    async admit(id, checks, now): Promise<WindowAdmission> {
      const keys = checks.flatMap((check) => subjectKeys(check.subject));
      const args = checks.flatMap((check) => [check.limit, check.weight, check.windowMs]);
      const reply = await client.modelportAdmit(keys.length, ...keys, now, id, ...args);
      const allowed = Number(reply[0]) === 1;
      const results = checks.map((check, index): WindowResult => {
        const used = Number(reply[1 + index * 3]);
        const retry = Number(reply[2 + index * 3]);
        const checkAllowed = used + check.weight <= check.limit;
        return {
          subject: check.subject,
          limit: check.limit,
          used: allowed ? used + check.weight : used,
          resetMs: allowed ? check.windowMs : Number(reply[3 + index * 3]),
          retryAfterMs: checkAllowed ? 0 : retry < 0 ? Number.POSITIVE_INFINITY : retry,
          allowed: checkAllowed,
        };
      });
      return { allowed, results };
    },
    async release(id, subjects) {
      if (subjects.length === 0) return;
      const keys = subjects.flatMap(subjectKeys);
      await client.modelportRelease(keys.length, ...keys, id);
    },
    async adjust(id, subject, weight) {
      await client.modelportAdjust(logKey(subject), weightsKey(subject), totalKey(subject), id, weight);
    },
    async replay(entries, now) {
      const pipeline = redis.pipeline() as ReturnType<Redis['pipeline']> & { modelportReplay(...args: Array<string | number>): unknown };
      for (const entry of entries) {
        pipeline.modelportReplay(...subjectKeys(entry.subject), entry.id, entry.at, entry.weight, now, entry.windowMs);
      }
      const replies = await pipeline.exec();
      const failure = replies?.find(([error]) => error !== null)?.[0];
      if (failure) throw failure;
    },
  };
}
