// Where the CLI finds kustomize and helm for a local render: $CONVOY_KUSTOMIZE_BINARY and
// $CONVOY_HELM_BINARY, else the ones `npm run testenv:build` built (when it has), else PATH (resolved
// to a full path here: the tools themselves run with an empty PATH).
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ToolBinaries } from '../render/tools/renderers.ts';
import { toolsCacheRoot } from '../testenv/tools.ts';

export function localToolBinaries(env: NodeJS.ProcessEnv = process.env): ToolBinaries {
  const pick = (name: 'kustomize' | 'helm', variable: string): string => {
    const given = env[variable];
    if (given !== undefined && given !== '') return given;
    const built = join(toolsCacheRoot(), 'bin', name);
    if (existsSync(built)) return built;
    // The tools run with an empty PATH (render/kustomize toolEnv): a bare name is resolved here.
    const found = (env.PATH ?? '')
      .split(delimiter)
      .filter((d) => d !== '')
      .map((d) => join(d, name))
      .find((p) => existsSync(p));
    return found ?? name;
  };
  return {
    kustomize: pick('kustomize', 'CONVOY_KUSTOMIZE_BINARY'),
    helm: pick('helm', 'CONVOY_HELM_BINARY'),
  };
}
