// The rule library shipped with convoy: one GlobalHealthRuleSet per API group in library/<group>.yaml,
// each labelled convoy.kumodo.io/rules: library (and convoy.kumodo.io/rules-group: <group>), so a
// Release selects the whole library or single groups. Loaded as data, like the default rules.
import { readdirSync, readFileSync } from 'node:fs';
import { parseRuleSets } from './ruleset-yaml.ts';
import type { HealthRuleSetLike } from './types.ts';

export const libraryDir = new URL('./library/', import.meta.url);
export const LIBRARY_LABEL = 'convoy.kumodo.io/rules';
export const LIBRARY_GROUP_LABEL = 'convoy.kumodo.io/rules-group';

export interface LibraryFile {
  readonly file: string;
  readonly text: string;
}

/** The library's files, sorted by name (the order rule sets are selected in). */
export function libraryFiles(): LibraryFile[] {
  return readdirSync(libraryDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({ file, text: readFileSync(new URL(file, libraryDir), 'utf8') }));
}

export function libraryRuleSets(): HealthRuleSetLike[] {
  return libraryFiles().flatMap(({ file, text }) => {
    const parsed = parseRuleSets(text, `library/${file}`);
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.ruleSets;
  });
}

/** deploy/rules/library.yaml: every library file, one YAML stream (npm run gen:deploy-rules). */
export function libraryYaml(): string {
  return libraryFiles()
    .map(({ text }) => `---\n${text.endsWith('\n') ? text : `${text}\n`}`)
    .join('');
}
