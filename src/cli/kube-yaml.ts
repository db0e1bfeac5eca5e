// YAML that kubectl reads back as it was meant: `convoy render` and `convoy import` print manifests to
// pipe into `kubectl apply -f -`, and kubectl's YAML reader (go-yaml v2 under sigs.k8s.io/yaml) speaks
// YAML 1.1, where plain `no`, `on`, `y`, `0755` or `1:20` are booleans and numbers, not the strings a
// YAML 1.2 writer leaves unquoted. Strings those would resolve as, and Go's prefixed integers (`0o17`,
// `0X1F`, which go-yaml parses with strconv.ParseInt base 0), are quoted; so is the merge key `<<`.
import { Document, Scalar, visit } from 'yaml';

/** Plain scalars go-yaml v2 reads as numbers or a merge key that the YAML 1.1 schema does not quote. */
const GO_NOT_A_STRING = /^(?:[-+]?0[bBoOxX][0-9a-fA-F_]*|<<)$/;

const MERGE_TAG = 'tag:yaml.org,2002:merge';

/** One document as kubectl reads it back: every string stays a string, keys included. */
export function kubeYaml(value: unknown): string {
  const doc = new Document(value, {
    version: '1.1',
    // The 1.1 schema writes a `<<` string as a bare merge key whatever its node type; without the tag
    // it is quoted below like the Go integers.
    customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== MERGE_TAG),
    aliasDuplicateObjects: false,
  });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && GO_NOT_A_STRING.test(node.value)) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return doc.toString({ lineWidth: 0 });
}
