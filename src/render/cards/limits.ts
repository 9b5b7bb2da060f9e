/**
 * Every number and enumeration of the card rules (platform facts, "Card message structure"), in
 * one place so the schema, the code checks, the XML mapping and the docs agree.
 */
export const MAX_CARDS = 5;
/** Across all cards of one message; a schema cannot count across siblings, so code checks it. */
export const MAX_MODULES_TOTAL = 50;

export const HEADER_TEXT_MAX = 100;
export const PLAIN_TEXT_MAX = 2000;
export const KMARKDOWN_MAX = 5000;

export const IMAGES_MIN = 1;
export const IMAGES_MAX = 9;
export const BUTTONS_MIN = 1;
export const BUTTONS_MAX = 4;
export const CONTEXT_ELEMENTS_MAX = 10;
export const PARAGRAPH_COLS_MIN = 1;
export const PARAGRAPH_COLS_MAX = 3;
export const PARAGRAPH_FIELDS_MAX = 50;

export const CARD_THEMES = [
  'primary',
  'success',
  'danger',
  'warning',
  'info',
  'secondary',
  'none',
  'invisible',
] as const;
/** The platform names no separate list for buttons; they take the card themes. */
export const BUTTON_THEMES = CARD_THEMES;
export const SIZES = ['sm', 'lg'] as const;
export const SECTION_MODES = ['left', 'right'] as const;
export const COUNTDOWN_MODES = ['day', 'hour', 'second'] as const;
export const BUTTON_CLICKS = ['', 'link', 'return-val'] as const;

/** `#rgb` or `#rrggbb`. */
export const COLOR_PATTERN = '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$';

/** Image formats the platform shows; `jpg` is the common spelling of jpeg. */
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'gif', 'png'] as const;

/** The only modules a card with theme `invisible` may hold (a section only without accessory). */
export const INVISIBLE_MODULES = [
  'context',
  'action-group',
  'divider',
  'header',
  'container',
  'section',
  'file',
  'audio',
  'video',
] as const;

/**
 * Below this a countdown time cannot be a millisecond timestamp of this era (it is ~3 years after
 * 1970 in ms, but ~5000 years ahead in seconds), so the past-time error adds a unit hint.
 */
export const SECONDS_TIMESTAMP_HINT_BELOW = 1e11;
