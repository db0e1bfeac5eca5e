// Scrubbing what git prints before it goes into a condition message: known secret values, URL
// passwords and Authorization headers (git echoes them with GIT_TRACE, and some servers echo URLs).

/** Secrets shorter than this are not replaced: "a" would shred the whole message and hides nothing. */
const MIN_SECRET = 4;

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) {
    if (s.length >= MIN_SECRET) out = out.split(s).join('***');
  }
  return out
    .replace(/(\/\/[^/@\s:]*):[^/@\s]*@/g, '$1:***@')
    .replace(
      /(authorization:[ \t]*)(?:(basic|bearer)[ \t]+)?[^\r\n]*/gi,
      (_m, h: string, scheme: string | undefined) => (scheme === undefined ? `${h}***` : `${h}${scheme} ***`),
    );
}

/** The last lines of git's stderr: the error is at the end, progress chatter before it. */
export function tail(text: string, maxLines = 6, maxChars = 1200): string {
  const lines = text
    .split(/\r?\n|\r/)
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');
  const last = lines.slice(-maxLines).join('\n');
  return last.length > maxChars ? `…${last.slice(-maxChars)}` : last;
}
