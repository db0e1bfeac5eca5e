// Whether a binary the testenv relies on (Chromium, Prometheus) is there to run: the one check both
// make before they fetch it.
import { access, constants } from 'node:fs/promises';

export async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
