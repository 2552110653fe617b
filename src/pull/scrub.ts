/*
 * `wcm pull --scrub`: personal data replaced before anything is written (docs/cli.md: Scrubbing).
 * Every pseudonym is an HMAC-SHA256 of the original under one key (random per pull, or
 * `--scrub-key`), so the same original gets the same pseudonym everywhere in a pull (and across
 * pulls with the same key), and nothing about the original can be read back without the key.
 *
 * - Contacts are keyed by e-mail (lower case) when they have one, else by contact id (threads) or
 *   name (bookings): bookings know a contact by e-mail only, so a thread's contact and a booking
 *   with the same e-mail get the same name and e-mail.
 * - E-mail addresses stay valid at `example.invalid` (RFC 2606: never resolves).
 * - Phones become North American numbers NPA-555-01XX: the 100 numbers 555-0100 to 555-0199 are
 *   reserved for fiction in every area code, so no real subscriber's number can be there (71,200
 *   numbers over the 712 area codes used). Valid E.164: `+1` and ten digits.
 * - Message bodies and transcripts become filler of the same length and shape: each word a word of
 *   the same length, digits other digits, spaces, line breaks and punctuation kept.
 * - Other free text keeps its words; only the e-mail addresses and phone numbers in it are replaced
 *   (with the same pseudonyms as above).
 */
import { createHmac } from 'node:crypto';

const FIRST = [
  'Avery',
  'Blair',
  'Corin',
  'Dale',
  'Emery',
  'Finley',
  'Gray',
  'Harper',
  'Indigo',
  'Jules',
  'Kai',
  'Lane',
  'Morgan',
  'Noel',
  'Oakley',
  'Parker',
  'Quinn',
  'Reese',
  'Sage',
  'Tatum',
  'Umber',
  'Vale',
  'Wynn',
  'Yael',
  'Zephyr',
  'Arden',
  'Bryn',
  'Cael',
  'Darby',
  'Ellis',
  'Fable',
  'Greer',
];
const LAST = [
  'Alder',
  'Bramble',
  'Cinder',
  'Dunmore',
  'Eskerby',
  'Fallow',
  'Gorsedge',
  'Heathcote',
  'Ivybridge',
  'Juniper',
  'Kestrelly',
  'Larchmont',
  'Mossgrove',
  'Nettlefold',
  'Oakhollow',
  'Pinecrest',
  'Quillfeather',
  'Rowanby',
  'Sedgewick',
  'Thistledown',
  'Underbough',
  'Vetchley',
  'Willowmere',
  'Yarrowby',
  'Zinnwald',
  'Ashcombe',
  'Birchall',
  'Copperfen',
  'Driftwood',
  'Elmstead',
  'Fernhollow',
  'Glenmarsh',
];
const WORDS = (
  'a ab ad et in id ut eu ac at ' +
  'sed non est vel nec sit per quo cum ' +
  'amet duis enim nisi quis orci eget nunc urna odio ' +
  'lorem ipsum dolor velit magna neque morbi justo lacus ' +
  'tempor labore dolore minim veniam mattis primis semper ' +
  'aliqua nostrud ullamco laboris commodo egestas maximus ' +
  'pharetra volutpat eleifend tristique fermentum vulputate consequat ' +
  'tincidunt hendrerit imperdiet malesuada porttitor ultricies ' +
  'consectetur scelerisque condimentum adipiscing'
).split(' ');
const BY_LENGTH = new Map<number, string[]>();
for (const w of WORDS) BY_LENGTH.set(w.length, [...(BY_LENGTH.get(w.length) ?? []), w]);

/** Area codes NXX with N 2–9, X 0–8 for the second digit (N9X are for expansion), no N11. */
const NPAS: string[] = [];
for (let a = 2; a <= 9; a++)
  for (let b = 0; b <= 8; b++) for (let c = 0; c <= 9; c++) if (!(b === 1 && c === 1)) NPAS.push(`${a}${b}${c}`);

export const EMAIL_PATTERN = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** International (`+44 20 7946 0123`, `+14155550142`) and national (`020 7946 0123`) numbers. */
export const PHONE_PATTERN = /(?<![\w+])(?:\+\d[\d ().-]{5,18}\d|0\d{1,4}[ -]?\d{3,4}[ -]?\d{3,4})(?![\w])/g;

const digitsOf = (s: string) => s.replace(/\D/g, '');

export class Scrubber {
  private readonly phones = new Map<string, string>();
  constructor(private readonly key: Buffer) {}

  private mac(kind: string, value: string): Buffer {
    return createHmac('sha256', this.key).update(kind).update('\0').update(value).digest();
  }

  /** A contact's name and e-mail from its key (see contactKey). */
  person(key: string): { name: string; email: string } {
    const h = this.mac('person', key);
    const first = FIRST[h[0] % FIRST.length];
    const last = LAST[h[1] % LAST.length];
    const tag = h.subarray(2, 5).toString('hex');
    return { name: `${first} ${last}`, email: `${first}.${last}.${tag}@example.invalid`.toLowerCase() };
  }

  /** What identifies a contact: its e-mail when it has one, else `fallback` (contact id, or name). */
  contactKey(email: string | null | undefined, fallback: string): string {
    return email ? `email:${email.trim().toLowerCase()}` : fallback;
  }

  email(original: string): string {
    return this.person(this.contactKey(original, '')).email;
  }

  /** A phone in NPA-555-01XX, the same for the same digits. */
  phone(original: string): string {
    const digits = digitsOf(original);
    let out = this.phones.get(digits);
    if (!out) {
      const h = this.mac('phone', digits);
      out = `+1${NPAS[h.readUInt32BE(0) % NPAS.length]}55501${String(h[4] % 100).padStart(2, '0')}`;
      this.phones.set(digits, out);
    }
    return out;
  }

  /** Filler of the same length and shape as `text` (a message body, a transcript). */
  body(text: string, salt: string): string {
    let h = this.mac('body', salt);
    let at = 0;
    const next = () => {
      if (at >= h.length) {
        h = this.mac('more', h.toString('hex'));
        at = 0;
      }
      return h[at++];
    };
    return text.replace(/\p{L}+|\p{N}/gu, (run) => {
      if (/^\p{N}$/u.test(run)) return String(next() % 10);
      const word = fillerWord(run.length, next);
      return /^\p{Lu}/u.test(run) ? word[0].toUpperCase() + word.slice(1) : word;
    });
  }

  /** Free text with the e-mail addresses and phone numbers in it replaced. */
  text(s: string): string {
    if (!s.includes('@') && !/\d{3}/.test(s)) return s;
    return s
      .replace(EMAIL_PATTERN, (e) => this.email(e))
      .replace(PHONE_PATTERN, (p) => {
        const n = digitsOf(p).length;
        return n >= 9 && n <= 15 ? this.phone(p) : p;
      });
  }

  /** Every string in a JSON value through `text`, but for ids (`id`, `*_id`). */
  deep<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.deep(v)) as T;
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value))
        out[k] = k === 'id' || k.endsWith('_id') || k.endsWith('_at') ? v : this.deep(v);
      return out as T;
    }
    return value;
  }
}

function fillerWord(length: number, next: () => number): string {
  let out = '';
  while (out.length < length) {
    const want = Math.min(length - out.length, 18);
    const pool = BY_LENGTH.get(want);
    if (pool) out += pool[next() % pool.length];
    else {
      // Longer than any word (or a length with none): a word and the rest.
      const w = WORDS[next() % WORDS.length].slice(0, want);
      out += w;
    }
  }
  return out.slice(0, length);
}
