/**
 * What `wcm serve --log-bodies` keeps of a request body (docs/security.md: `--log-bodies` masking).
 *
 * The body is cut to what the log keeps (4 KiB) first, and only that part is read, in one pass per
 * rule and without regular expressions that can backtrack: the time is bounded by the 4 KiB, not by
 * the body, whatever it holds (a 1 MiB body of repeated `code` once froze the event loop for hours).
 * A cut never uncovers part of a secret: a value under a secret key is masked even when the cut falls
 * inside it, and a digit run or e-mail address cut short at the end is dropped.
 */

/** Keys whose values a logged body never shows (TRUST §5), wherever they sit in the body. */
const SECRET_KEY = /secret|token|password|authorization|api[_-]?key|card|number|cvc|iban|^code$|verifier/i;
/** In text that is neither JSON nor a form, a `key: value` or `key=value` whose key holds one of these. */
const SECRET_WORD = /secret|token|password|authorization|api[_-]?key|card|number|cvc|iban|code|verifier/i;
/** 12 or more digits, with single spaces or dashes between them: card, account and phone numbers. */
const DIGIT_RUN = /\d(?:[ -]?\d){11,}/g;
const TOKENISH = /\bwcm_(?:pat|oat|ort|code|secret|admin)_[A-Za-z0-9]+/g;
const MASK = '***';
/** What the log keeps of a body, in UTF-16 units. */
export const LOGGED_BODY_CHARS = 4096;
/**
 * The bytes of a raw body decoded for the log: a UTF-16 unit takes at most 3 bytes of UTF-8, so a
 * longer body always decodes to more than LOGGED_BODY_CHARS units and its cut is seen.
 */
export const LOGGED_BODY_BYTES = LOGGED_BODY_CHARS * 3 + 3;

const code = (s: string, i: number): number => (i < s.length ? s.charCodeAt(i) : -1);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** `[A-Za-z0-9_-]`: the characters of a key in key/value text. */
const isKeyChar = (c: number): boolean => isLetter(c) || isDigit(c) || c === 95 || c === 45;
/** `[A-Za-z0-9.-]`: a domain's characters. */
const isDomainChar = (c: number): boolean => isLetter(c) || isDigit(c) || c === 46 || c === 45;
/** `[A-Za-z0-9._%+-]`: an address's local part. */
const isLocalChar = (c: number): boolean => isDomainChar(c) || c === 95 || c === 37 || c === 43;
const SPACE = /\s/;
const isSpace = (s: string, i: number): boolean => i < s.length && SPACE.test(s[i]);
/** Line terminators, which `.` in a regular expression does not match. */
const isLineEnd = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/**
 * What a logged body may show: values under secret-like keys, runs of 12+ digits, tokens and e-mail
 * addresses masked, in at most LOGGED_BODY_CHARS units.
 */
export function maskBody(text: string): string {
  let cut = text.length > LOGGED_BODY_CHARS;
  const kept = cut ? text.slice(0, LOGGED_BODY_CHARS) : text;
  let out = maskEmails(
    maskKeys(kept, cut)
      .replace(TOKENISH, (t) => `${t.slice(0, t.indexOf('_', 4) + 1)}…`)
      .replace(DIGIT_RUN, '****'),
  );
  // A mask can be longer than what it hides (`""` → `"***"`): the log still keeps 4 KiB.
  if (out.length > LOGGED_BODY_CHARS) {
    out = out.slice(0, LOGGED_BODY_CHARS);
    cut = true;
  }
  return cut ? withoutCutTail(out) : out;
}

/** The body with secret keys' values masked, by its shape: JSON, a form, else key/value text. */
function maskKeys(text: string, cut: boolean): string {
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    const json = maskJson(text, cut);
    if (json !== undefined) return json;
    // Not JSON after all: masked as text below.
  }
  if (/^[^\s=&{[]+=\S*$/.test(text)) {
    const form = new URLSearchParams(text);
    for (const k of new Set(form.keys())) if (SECRET_KEY.test(k)) form.set(k, MASK);
    return form.toString().replaceAll('%2A', '*');
  }
  return maskPairs(text);
}

/**
 * A JSON text, or the start of one when the body was cut, with every value under a secret key
 * replaced by `"***"` however deep (objects and arrays whole), and the whitespace between tokens
 * dropped. Undefined when the text is not JSON (or, uncut, not all of it).
 */
function maskJson(s: string, cut: boolean): string | undefined {
  const out: string[] = [];
  /** The open containers: true for an object. */
  const open: boolean[] = [];
  // What may come next: a value, an object's key, its colon, or what follows a value (`,` or a close).
  let want: 'value' | 'key' | 'colon' | 'after' = 'value';
  /** Right after `[` or `{`, where a close may come instead of a value or key. */
  let fresh = false;
  let masked = false;
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    if (want === 'value' && masked) {
      i = skipValue(s, i);
      if (i < 0) return undefined;
      out.push('"***"');
      masked = false;
      want = 'after';
      continue;
    }
    if ((c === 93 || c === 125) && (want === 'after' || fresh)) {
      // `]` or `}`: closes the innermost container, if it is of that kind.
      if (open.length === 0 || open[open.length - 1] !== (c === 125)) return undefined;
      open.pop();
      out.push(s[i++]);
      want = 'after';
      fresh = false;
      continue;
    }
    fresh = false;
    if (want === 'after') {
      if (c === 44 && open.length) {
        out.push(',');
        i++;
        want = open[open.length - 1] ? 'key' : 'value';
        continue;
      }
      return undefined;
    }
    if (want === 'colon') {
      if (c !== 58) return undefined;
      out.push(':');
      i++;
      want = 'value';
      continue;
    }
    if (want === 'key') {
      if (c !== 34) return undefined;
      const end = stringEnd(s, i);
      if (end === -2) return undefined;
      const raw = s.slice(i, end < 0 ? n : end + 1);
      out.push(raw);
      if (end < 0) break;
      let key = raw.slice(1, -1);
      if (raw.includes('\\')) {
        try {
          key = JSON.parse(raw) as string;
        } catch {
          return undefined;
        }
      }
      masked = SECRET_KEY.test(key);
      i = end + 1;
      want = 'colon';
      continue;
    }
    // A value.
    if (c === 123 || c === 91) {
      open.push(c === 123);
      out.push(s[i++]);
      want = c === 123 ? 'key' : 'value';
      fresh = true;
      continue;
    }
    if (c === 34) {
      const end = stringEnd(s, i);
      if (end === -2) return undefined;
      out.push(s.slice(i, end < 0 ? n : end + 1));
      if (end < 0) break;
      i = end + 1;
    } else {
      let j = i;
      while (j < n && (isLetter(s.charCodeAt(j)) || isDigit(s.charCodeAt(j)) || '+-.'.includes(s[j]))) j++;
      const word = s.slice(i, j);
      if (!(j === n && cut ? word.length > 0 : LITERAL.test(word))) return undefined;
      out.push(word);
      i = j;
    }
    want = 'after';
  }
  if (i >= n && !cut && (open.length || want !== 'after')) return undefined;
  return out.join('');
}
const LITERAL = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;

/**
 * Where the JSON string opening at `i` closes: the index of its closing quote, -1 when the text ends
 * first, -2 when it holds a raw control character (not JSON).
 */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 34) return j;
    if (c === 92) j++;
    else if (c < 32) return -2;
  }
  return -1;
}

/** The end of the JSON value at `i` (a whole container, string or literal), or `s.length`; -1 if not JSON. */
function skipValue(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 34) {
      const end = stringEnd(s, j);
      if (end === -2) return -1;
      if (end < 0) return s.length;
      j = end;
      if (depth === 0) return j + 1;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (depth === 0) return j;
      if (--depth === 0) return j + 1;
    } else if (depth === 0 && (c === 44 || c === 32 || c === 9 || c === 10 || c === 13)) return j;
  }
  return s.length;
}

/**
 * Key/value text: the value of every `key: value` or `key=value` whose key holds a secret word is
 * masked. The key is a run of `[A-Za-z0-9_-]`, maybe quoted; the value a quoted string or a run up to
 * `&`, `,`, `}` or a space. The same as the pattern
 * `("?[\w-]*(?:secret|…)[\w-]*"?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|[^&,}\s]+)`, read in one pass: each
 * key is read once, and where each quoted string closes is worked out once for the whole text.
 */
function maskPairs(s: string): string {
  const n = s.length;
  let closes: Int32Array | undefined;
  /** Where a quoted string whose content starts at `i` closes (its quote), or -1. */
  const closeFrom = (i: number): number => {
    if (!closes) {
      // Right to left: a quote closes here; a backslash skips the unit after it (not a line end).
      closes = new Int32Array(n + 2).fill(-1);
      for (let j = n - 1; j >= 0; j--) {
        const c = s.charCodeAt(j);
        if (c === 34) closes[j] = j;
        else if (c === 92) closes[j] = j + 1 < n && !isLineEnd(s.charCodeAt(j + 1)) ? closes[j + 2] : -1;
        else closes[j] = closes[j + 1];
      }
    }
    return closes[i];
  };
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < n) {
    if (!isKeyChar(s.charCodeAt(i))) {
      i++;
      continue;
    }
    let keyEnd = i;
    while (keyEnd < n && isKeyChar(s.charCodeAt(keyEnd))) keyEnd++;
    const key = s.slice(i, keyEnd);
    i = keyEnd;
    if (!SECRET_WORD.test(key)) continue;
    let j = keyEnd;
    if (code(s, j) === 34) j++;
    while (isSpace(s, j)) j++;
    const sep = code(s, j);
    if (sep !== 58 && sep !== 61) continue;
    j++;
    while (isSpace(s, j)) j++;
    if (j >= n) continue;
    let end = -1;
    if (code(s, j) === 34) {
      const close = closeFrom(j + 1);
      if (close >= 0) end = close + 1;
    }
    if (end < 0) {
      end = j;
      while (end < n && !'&,}'.includes(s[end]) && !isSpace(s, end)) end++;
      if (end === j) continue;
    }
    out += s.slice(copied, j) + MASK;
    copied = i = end;
  }
  return copied ? out + s.slice(copied) : s;
}

/**
 * Every e-mail address (`local@domain.tld`) becomes `***@***`. The same as the pattern
 * `[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`, read in one pass: each `@` looks left over its
 * local part and right over its domain, and no character is read for two of them.
 */
function maskEmails(s: string): string {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const at = s.indexOf('@', from);
    if (at < 0) break;
    let start = at;
    while (start > from && isLocalChar(s.charCodeAt(start - 1))) start--;
    let domainEnd = at + 1;
    while (domainEnd < s.length && isDomainChar(s.charCodeAt(domainEnd))) domainEnd++;
    from = at + 1;
    if (start === at) continue;
    // The last dot with two letters after it, and at least one character between it and the `@`.
    let dot = -1;
    for (let d = domainEnd - 3; d >= at + 2; d--) {
      if (s.charCodeAt(d) === 46 && isLetter(s.charCodeAt(d + 1)) && isLetter(s.charCodeAt(d + 2))) {
        dot = d;
        break;
      }
    }
    if (dot < 0) continue;
    let end = dot + 1;
    while (end < s.length && isLetter(s.charCodeAt(end))) end++;
    out += s.slice(copied, start) + '***@***';
    copied = from = end;
  }
  return copied ? out + s.slice(copied) : s;
}

/**
 * A cut body without what the cut left of a digit run or an e-mail address at its end: the part
 * before the cut would not be masked by the rules above, yet is part of a number or address.
 */
function withoutCutTail(s: string): string {
  let i = s.length;
  // An address cut short: from the local part before the last `@` of the address characters at the end.
  let j = i;
  while (j > 0 && isDomainChar(s.charCodeAt(j - 1))) j--;
  if (j > 0 && s.charCodeAt(j - 1) === 64) {
    i = j - 1;
    while (i > 0 && isLocalChar(s.charCodeAt(i - 1))) i--;
  }
  // Digits with single spaces or dashes between them (and maybe one after).
  const sep = (c: number) => c === 32 || c === 45;
  if (i > 1 && sep(s.charCodeAt(i - 1)) && isDigit(s.charCodeAt(i - 2))) i--;
  while (i > 0 && isDigit(s.charCodeAt(i - 1))) {
    i--;
    if (i > 1 && sep(s.charCodeAt(i - 1)) && isDigit(s.charCodeAt(i - 2))) i--;
  }
  return s.slice(0, i);
}
