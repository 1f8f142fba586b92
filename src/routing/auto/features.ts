/**
 * Prompt features for the `auto` strategy: hashed word unigrams and bigrams,
 * answer-option words, symbols, and a few dozen dense "meta" features
 * (length, lines, answer options, digits, symbols). One pass over at most
 * `headChars + tailChars` characters, no allocation: everything is written
 * into a reusable {@link FeatureBuffer}, so training and inference share the
 * exact same code.
 */

/** How the text is cut into features; stored with the weights it was trained with. */
export interface FeatureConfig {
  /** Text features are hashed into `2^hashBits` buckets, after the dense meta features. */
  readonly hashBits: number;
  /** Characters read from the start of long prompts. */
  readonly headChars: number;
  /** Characters read from the end of long prompts (where the question and the options usually are). */
  readonly tailChars: number;
}

export const DEFAULT_FEATURE_CONFIG: FeatureConfig = { hashBits: 16, headChars: 1536, tailChars: 1024 };

/** The dense meta features, at fixed indices `0 .. META_COUNT-1` below the hashed buckets. */
export const META_NAMES = [
  'log-chars',
  'chars<128',
  'chars<256',
  'chars<512',
  'chars<1024',
  'chars<2048',
  'chars>=2048',
  'log-lines',
  'single-line',
  'options=0',
  'options=2',
  'options=3',
  'options=4',
  'options>=5',
  'options-numeric-all',
  'options-numeric-some',
  'option-mean-chars<10',
  'option-mean-chars<30',
  'option-mean-chars<80',
  'option-mean-chars>=80',
  'stem-log-chars',
  'digits=0',
  'digits<2%',
  'digits<8%',
  'digits>=8%',
  'math-symbols=0',
  'math-symbols<1%',
  'math-symbols<3%',
  'math-symbols>=3%',
  'pipe',
  'question-mark',
  'latex-or-dollar',
  'code-braces',
  'uppercase>=10%',
  'mean-word-length>=6',
  'long-words>=20%',
  'caps-negation',
  'roman-options',
  'blank',
  'year',
  'stem-ends-question',
  'options-single-word',
  'option-length-spread',
  'first-person',
  'quote',
  'decimal-number',
  'stem-sentences>=3',
] as const;
export const META_COUNT = META_NAMES.length;
const META = Object.fromEntries(META_NAMES.map((name, index) => [name, index])) as Record<(typeof META_NAMES)[number], number>;

/** Size of the weight table: the meta features, then the hashed buckets. */
export function featureCount(config: FeatureConfig): number {
  return META_COUNT + (1 << config.hashBits);
}

/** Reusable output of {@link extractFeatures}. */
export interface FeatureBuffer {
  /** Hashed bucket of each text feature (repeats allowed); only the first `textCount` are valid. */
  readonly textIndices: Int32Array;
  textCount: number;
  /** The value of every text feature: 1/sqrt(textCount), so long and short prompts weigh alike. */
  textValue: number;
  /** Dense meta feature values, indexed as {@link META_NAMES}. */
  readonly meta: Float32Array;
}

export function createFeatureBuffer(config: FeatureConfig): FeatureBuffer {
  // A word of one character plus its separator yields at most 3 features (unigram, bigram, option word),
  // a symbol one more.
  const capacity = 2 * (config.headChars + config.tailChars) + 16;
  return { textIndices: new Int32Array(capacity), textCount: 0, textValue: 0, meta: new Float32Array(META_COUNT) };
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const NS_UNIGRAM = 0x1b873593;
const NS_BIGRAM = 0x5bd1e995;
const NS_OPTION = 0x68e31da4;
const NS_SYMBOL = 0x2c1b3c6d;
/** Word hashes for runs of digits, by length 1, 2, 3 and 4+ (numbers generalise by size, not value). */
const NUMBER_HASHES = [0x3d4d51c3, 0x761c23c5, 0x5c6b7ad1, 0x1f25e3a7] as const;

/** The FNV-1a hash of a lower-case ASCII word, as the scanner computes it. */
function wordHashOf(word: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < word.length; i += 1) hash = Math.imul(hash ^ word.charCodeAt(i), FNV_PRIME);
  return hash;
}
const NEGATIONS = new Set(['not', 'except', 'least', 'never'].map(wordHashOf));
const ROMAN = new Set(['ii', 'iii', 'iv'].map(wordHashOf));
const FIRST_PERSON = new Set(['i', 'my', 'me'].map(wordHashOf));

/** murmur3's finaliser: spreads FNV's low-entropy bits before masking. */
function mix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

const isDigitCode = (code: number) => code >= 48 && code <= 57;
const isMathSymbol = (code: number) =>
  code === 61 || code === 43 || code === 42 || code === 47 || code === 94 || code === 60 || code === 62 || code === 40 || code === 41 || code === 37;

/** Meta feature helper: sets one of a group of bins. */
function bin(meta: Float32Array, value: number, bounds: readonly number[], first: number): void {
  let index = 0;
  while (index < bounds.length && value >= (bounds[index] ?? Infinity)) index += 1;
  meta[first + index] = 1;
}

/**
 * Fills `out` with the features of `text`. Reads the whole text when it is at
 * most `headChars + tailChars` long, else its head and its tail only, so the
 * cost is bounded whatever the prompt length.
 */
export function extractFeatures(text: string, config: FeatureConfig, out: FeatureBuffer): void {
  const indices = out.textIndices;
  const meta = out.meta;
  meta.fill(0);
  const mask = (1 << config.hashBits) - 1;
  let count = 0;

  const length = text.length;
  const whole = length <= config.headChars + config.tailChars;
  let scanned = 0;
  let digits = 0;
  let mathSymbols = 0;
  let uppercase = 0;
  let letters = 0;
  let words = 0;
  let longWords = 0;
  let lines = 1;
  let options = 0;
  let numericOptions = 0;
  let optionChars = 0;
  let stemEnd = -1;
  let pipe = false;
  let questionMark = false;
  let latex = false;
  let braces = false;
  let capsNegation = false;
  let romanOptions = false;
  let blank = false;
  let year = false;
  let stemEndsQuestion = false;
  let singleWordOptions = 0;
  let shortestOption = Infinity;
  let longestOption = 0;
  let firstPerson = 0;
  let stemWords = 0;
  let quote = false;
  let decimal = false;
  let stemSentences = 0;
  let lastVisible = 0;
  let underscores = 0;

  for (let segment = 0; segment < (whole ? 1 : 2); segment += 1) {
    const start = whole || segment === 0 ? 0 : length - config.tailChars;
    const end = whole ? length : segment === 0 ? config.headChars : length;
    let inWord = false;
    let wordHash = 0;
    let wordLength = 0;
    let allDigits = true;
    let previous = 0;
    let lineStart = start === 0 || text.charCodeAt(start - 1) === 10;
    let optionLine = false;
    let optionFirstWord = false;
    let optionStart = 0;
    let optionWords = 0;
    let wordUpper = 0;
    let firstCode = 0;

    for (let i = start; i <= end; i += 1) {
      const code = i < end ? text.charCodeAt(i) : 10;
      if (lineStart && i < end) {
        lineStart = false;
        optionLine = false;
        // An answer option line: "A. text" or "B) text".
        const next = text.charCodeAt(i + 1);
        if (code >= 65 && code <= 74 && (next === 46 || next === 41) && text.charCodeAt(i + 2) === 32) {
          optionLine = true;
          optionFirstWord = true;
          optionStart = i + 3;
          optionWords = 0;
          options += 1;
          if (stemEnd < 0) {
            stemEnd = scanned;
            stemEndsQuestion = lastVisible === 63;
          }
          i += 2;
          scanned += 3;
          continue;
        }
      }
      if (i < end) scanned += 1;
      const upper = code >= 65 && code <= 90;
      const lower = code >= 97 && code <= 122;
      const digit = code >= 48 && code <= 57;
      if (upper || lower || digit || code >= 128) {
        lastVisible = code;
        if (!inWord) {
          inWord = true;
          wordHash = FNV_OFFSET;
          wordLength = 0;
          allDigits = true;
          wordUpper = 0;
          firstCode = code;
        }
        const folded = upper ? code + 32 : code;
        wordHash = Math.imul(wordHash ^ folded, FNV_PRIME);
        wordLength += 1;
        if (digit) digits += 1;
        else {
          allDigits = false;
          letters += 1;
          if (upper) {
            uppercase += 1;
            wordUpper += 1;
          }
        }
        continue;
      }
      if (inWord) {
        inWord = false;
        const hash = allDigits ? NUMBER_HASHES[Math.min(wordLength, 4) - 1] ?? 0 : wordHash;
        indices[count++] = META_COUNT + (mix(hash ^ NS_UNIGRAM) & mask);
        if (previous !== 0) indices[count++] = META_COUNT + (mix(Math.imul(previous, 0x9e3779b1) ^ hash ^ NS_BIGRAM) & mask);
        previous = hash;
        if (optionLine) {
          indices[count++] = META_COUNT + (mix(hash ^ NS_OPTION) & mask);
          if (optionFirstWord && allDigits) numericOptions += 1;
          optionFirstWord = false;
        }
        words += 1;
        if (wordLength >= 9) longWords += 1;
        if (optionLine) {
          optionWords += 1;
          if (wordUpper === wordLength && ROMAN.has(hash)) romanOptions = true;
        } else if (stemEnd < 0) {
          stemWords += 1;
          if (FIRST_PERSON.has(hash)) firstPerson += 1;
        }
        if (wordLength >= 3 && wordUpper === wordLength && NEGATIONS.has(hash)) capsNegation = true;
        if (allDigits && wordLength === 4 && (firstCode === 49 || firstCode === 50)) year = true;
      }
      if (code === 10) {
        if (i < end) lines += 1;
        lineStart = true;
        if (optionLine) {
          const optionLength = i - optionStart;
          optionChars += optionLength;
          if (optionLength < shortestOption) shortestOption = optionLength;
          if (optionLength > longestOption) longestOption = optionLength;
          if (optionWords === 1) singleWordOptions += 1;
        }
        optionLine = false;
        underscores = 0;
      } else if (code > 32) {
        if (code === 95) {
          underscores += 1;
          if (underscores >= 3) blank = true;
        } else underscores = 0;
        if (code === 34) quote = true;
        else if (code === 46 && (lastVisible >= 48 && lastVisible <= 57) && isDigitCode(text.charCodeAt(i + 1))) decimal = true;
        if ((code === 46 || code === 63 || code === 33) && stemEnd < 0 && text.charCodeAt(i + 1) === 32) stemSentences += 1;
        lastVisible = code;
        if (isMathSymbol(code)) mathSymbols += 1;
        if (code === 124) pipe = true;
        else if (code === 63) questionMark = true;
        else if (code === 36 || code === 92) latex = true;
        else if (code === 123 || code === 125 || code === 59) braces = true;
        if (code !== 46 && code !== 44 && code !== 58) indices[count++] = META_COUNT + (mix(code ^ NS_SYMBOL) & mask);
      }
    }
  }

  out.textCount = count;
  out.textValue = count === 0 ? 0 : 1 / Math.sqrt(count);

  // Whole-text length even when only head and tail were read. The continuous length features are centred and
  // scaled to about unit spread on MMLU (log2 of the length: mean 8.4, sd 1.1; of the stem: 7.2, 1.5) so that an
  // L2 penalty shared with the other features lets them carry the length signal.
  const logChars = Math.log2(length + 1);
  meta[META['log-chars']] = (logChars - 8.5) / 1.25;
  bin(meta, length, [128, 256, 512, 1024, 2048], META['chars<128']);
  meta[META['log-lines']] = Math.log2(lines) / 6;
  if (lines === 1) meta[META['single-line']] = 1;
  bin(meta, options, [2, 3, 4, 5], META['options=0']);
  if (options > 0 && numericOptions === options) meta[META['options-numeric-all']] = 1;
  else if (numericOptions > 0) meta[META['options-numeric-some']] = 1;
  if (options > 0) bin(meta, optionChars / options, [10, 30, 80], META['option-mean-chars<10']);
  meta[META['stem-log-chars']] = (Math.log2((stemEnd < 0 ? scanned : stemEnd) + 1) - 7) / 1.5;
  const perChar = (n: number) => (scanned === 0 ? 0 : n / scanned);
  const digitShare = perChar(digits);
  if (digits === 0) meta[META['digits=0']] = 1;
  else bin(meta, digitShare, [0.02, 0.08], META['digits<2%']);
  const mathShare = perChar(mathSymbols);
  if (mathSymbols === 0) meta[META['math-symbols=0']] = 1;
  else bin(meta, mathShare, [0.01, 0.03], META['math-symbols<1%']);
  if (pipe) meta[META.pipe] = 1;
  if (questionMark) meta[META['question-mark']] = 1;
  if (latex) meta[META['latex-or-dollar']] = 1;
  if (braces) meta[META['code-braces']] = 1;
  if (letters > 0 && uppercase / letters >= 0.1) meta[META['uppercase>=10%']] = 1;
  if (words > 0 && letters / words >= 6) meta[META['mean-word-length>=6']] = 1;
  if (words > 0 && longWords / words >= 0.2) meta[META['long-words>=20%']] = 1;
  if (capsNegation) meta[META['caps-negation']] = 1;
  if (romanOptions) meta[META['roman-options']] = 1;
  if (blank) meta[META.blank] = 1;
  if (year) meta[META.year] = 1;
  if (stemEndsQuestion) meta[META['stem-ends-question']] = 1;
  if (options > 0 && singleWordOptions === options) meta[META['options-single-word']] = 1;
  if (options > 1 && longestOption >= 20 && longestOption >= 3 * Math.max(1, shortestOption)) meta[META['option-length-spread']] = 1;
  if (stemWords > 0 && firstPerson / stemWords >= 0.03) meta[META['first-person']] = 1;
  if (quote) meta[META.quote] = 1;
  if (decimal) meta[META['decimal-number']] = 1;
  if (stemSentences >= 3) meta[META['stem-sentences>=3']] = 1;
}
