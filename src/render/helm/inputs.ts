// What a Helm render depends on besides its files, resolved the same way by the controller and by
// `convoy render`/`convoy diff`: the valuesFrom ConfigMaps and Secrets of the Release's namespace (read
// through the caller's function, Secrets decoded) and the target's capabilities. Part of the render
// cache's key, so a changed Secret is a new render. Nothing for another render type.

import { errorMessage } from '../../lib/errors.ts';
import type { Problem } from '../errors.ts';
import { type Checked, fail, ok } from '../result.ts';
import type { Capabilities, RenderInputs, RenderSpec } from '../types.ts';
import { describeRef, resolveValuesFrom } from './values.ts';

/** The decoded data of a ConfigMap or Secret (strings), or undefined when there is no such object. */
export type ReadValuesObject = (
  kind: 'ConfigMap' | 'Secret',
  namespace: string,
  name: string,
) => Promise<Readonly<Record<string, string>> | undefined>;

export async function helmRenderInputs(
  render: RenderSpec | undefined,
  namespace: string,
  read: ReadValuesObject,
  /** undefined: not known (offline), Helm's defaults apply. */
  capabilities: () => Promise<Capabilities | undefined>,
): Promise<Checked<RenderInputs>> {
  if (render?.type !== 'Helm') return ok({});
  const refs = render.helm?.valuesFrom ?? [];
  const problems: Problem[] = [];
  const data = await Promise.all(
    refs.map((ref, i) =>
      read(ref.kind, namespace, ref.name).catch((err: unknown) => {
        problems.push({
          where: describeRef(ref, i, namespace),
          message: `reading it: ${errorMessage(err)}`,
        });
        return undefined;
      }),
    ),
  );
  if (problems.length > 0) return fail(problems);
  const values = resolveValuesFrom(refs, namespace, (_ref, i) => data[i]);
  if (!values.ok) return values;
  let caps: Capabilities | undefined;
  try {
    caps = await capabilities();
  } catch (err) {
    return fail([
      {
        where: 'spec.render.helm',
        message: `reading the target cluster's version and APIs for .Capabilities: ${errorMessage(err)}`,
      },
    ]);
  }
  return ok(
    caps === undefined ? { valuesFrom: values.value } : { valuesFrom: values.value, capabilities: caps },
  );
}
