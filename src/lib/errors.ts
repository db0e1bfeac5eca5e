// errorMessage, the one way to turn whatever was thrown into the text of a condition, log line or Event:
// `(err as Error).message` is undefined for a thrown string, and String(err) prefixes "Error: ".
/** The message of anything thrown: its `message` when it has one (Errors, API failures), else String(err). */
export function errorMessage(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const message = (err as { readonly message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return String(err);
}
