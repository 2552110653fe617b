/** The byte values the hand-written JSON and snapshot readers look for (ASCII, so one byte in UTF-8). */
export const TAB = 9;
export const NL = 10;
export const QUOTE = 34;
export const COMMA = 44;
export const DASH = 45;
export const COLON = 58;
export const OPEN_BRACKET = 91;
export const BACKSLASH = 92;
export const CLOSE_BRACKET = 93;
export const OPEN_BRACE = 123;
export const CLOSE_BRACE = 125;
