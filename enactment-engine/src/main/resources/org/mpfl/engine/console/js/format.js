// Formatting of times, durations, sizes and values for display.

/** "1.2 s", "3 min 04 s", "2 h 05 min"; "–" for missing. */
export function formatDuration(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 0) ms = 0;
  if (ms < 1000) return Math.round(ms) + ' ms';
  if (ms < 60_000) return (ms / 1000).toFixed(ms < 10_000 ? 2 : 1) + ' s';
  const s = Math.floor(ms / 1000);
  if (s < 3600) return Math.floor(s / 60) + ' min ' + String(s % 60).padStart(2, '0') + ' s';
  return Math.floor(s / 3600) + ' h ' + String(Math.floor(s / 60) % 60).padStart(2, '0') + ' min';
}

/** The browser's offset from UTC at that moment: "UTC", "UTC+1", "UTC-3:30". */
export function utcOffset(epochMs) {
  const minutes = -new Date(epochMs).getTimezoneOffset();
  if (minutes === 0) return 'UTC';
  const a = Math.abs(minutes);
  return 'UTC' + (minutes > 0 ? '+' : '-') + Math.floor(a / 60) + (a % 60 ? ':' + String(a % 60).padStart(2, '0') : '');
}

/** Local date and time with seconds and the zone, e.g. "2024-05-01 14:03:07 UTC+2". */
export function formatTime(epochMs) {
  if (!epochMs) return '–';
  const d = new Date(epochMs);
  const p = n => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${utcOffset(epochMs)}`;
}

/** "1 message", "2 messages" (plural with an s unless given). */
export function plural(n, word, many = word + 's') {
  return `${n} ${n === 1 ? word : many}`;
}

/** A large count as people read it: 31500000 → "31.5M", 4190 → "4190". */
export function formatAmount(x) {
  if (!Number.isFinite(x)) return '–';
  if (!Number.isInteger(x)) return x.toFixed(2);
  return Math.abs(x) < 100_000 ? String(x) : formatCount(x);
}

/** An ISO-8601 duration as the engine's Java prints it (PT0.5S, PT1M30S) in ms / s / min. */
function isoDuration(text) {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(text);
  if (!m) return text;
  return formatDuration(((Number(m[1] || 0) * 60 + Number(m[2] || 0)) * 60 + Number(m[3] || 0)) * 1000);
}

/**
 * A failure message for people: ISO durations in ms / s, and internal ids (domain ids, tokens) left
 * out. Returns {text, hidden}: hidden is true when something was left out (the full message is
 * shown on request).
 */
export function humanMessage(message) {
  const full = String(message || '');
  const telling = tellingLine(full);
  let text = telling.replace(/\bPT(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?\b/g, d => d === 'PT' ? d : isoDuration(d));
  const withoutIds = text.replace(/,?\s*domain [A-Za-z0-9_-]{6,}…?/g, '').replace(/\(\s*\)/g, '').replace(/ {2,}/g, ' ')
    .replace(/(?:[A-Za-z]:)?(?:[\/\\][\w.@+-]+)+[\/\\]([\w.@+-]+\.xml(?::\d+){0,2})/g, '$1'); // source paths as file:line:col
  return {text: withoutIds, hidden: withoutIds !== text || telling !== full.trim()};
}

/**
 * The line of a long message that says what happened (as `mpflc runs` picks it): the first, unless it
 * only announces what follows (ends with a colon, as "raised an exception:" before a Python
 * traceback), then the last. A Java exception's frames ("at org.x.Y.f(Y.java:52)") and a traceback
 * are for whoever asks for the details.
 */
export function tellingLine(message) {
  const lines = String(message || '').split('\n').map(l => l.trim()).filter(Boolean);
  if (lines.length === 0) return '';
  return lines[0].endsWith(':') ? lines[lines.length - 1] : lines[0];
}

/** Clock time with milliseconds, e.g. "14:03:07.125". */
export function formatClock(epochMs) {
  if (!epochMs) return '–';
  const d = new Date(epochMs);
  const p = (n, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** Clock time with milliseconds and the zone, e.g. "14:03:07.125 UTC+2" (log lines: every time shown says its zone). */
export function formatClockWithZone(epochMs) {
  return epochMs ? formatClock(epochMs) + ' ' + utcOffset(epochMs) : '–';
}

/** How long ago, e.g. "1.4 s ago". */
export function formatAgo(epochMs, nowMs = Date.now()) {
  if (!epochMs) return '–';
  return formatDuration(Math.max(0, nowMs - epochMs)) + ' ago';
}

/** "512 B", "1.5 KiB", "3.2 MiB". */
export function formatBytes(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  if (n < 1024) return n + ' B';
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return v.toFixed(v < 10 ? 1 : 0) + ' ' + units[i];
}

/** Compact count: 999, 1.2k, 3.4M. */
export function formatCount(n) {
  if (!Number.isFinite(n)) return '–';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return (n / 1000).toFixed(n < 10_000 ? 1 : 0) + 'k';
  return (n / 1_000_000).toFixed(1) + 'M';
}

/** An output or parameter value as short text (JSON for structures, truncated). */
export function formatValue(v, max = 200) {
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (s === undefined) s = String(v);
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** A run's parameters sorted by name, [[name, value], …]: the engine keeps no order, and a reader looks a name up. */
export function sortedParams(params) {
  return Object.entries(params || {}).sort(([a], [b]) => a.localeCompare(b));
}

/**
 * A run's error in one line, as `mpflc runs` says it: "rank 1 at ring.mpfl.xml:10:7: boom" (its
 * telling line, the location's file name); full: the same with the whole location and message.
 */
export function errorLine(error, full = false) {
  if (!error) return '';
  const where = (Number.isInteger(error.rank) ? 'rank ' + error.rank : '')
    + (error.location ? (Number.isInteger(error.rank) ? ' at ' : 'at ') + (full ? error.location : shortLocation(error.location)) : '');
  const message = full ? String(error.message || '') : humanMessage(error.message).text;
  return where ? where + ': ' + message : message;
}

/**
 * A source location shortened to its file name: "/tmp/x/ring.mpfl.xml:12:7" → "ring.mpfl.xml:12:7". A run's error
 * names the URL of a lost host instead of a place in the document: that is "host 127.0.0.1:41225", not the last
 * segment of its path, which is a service's name and read as a document's.
 */
export function shortLocation(location) {
  if (!location) return '';
  const s = String(location);
  const url = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(s);
  if (url) return 'host ' + url[1];
  const slash = Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\'));
  return slash >= 0 ? s.slice(slash + 1) : s;
}
