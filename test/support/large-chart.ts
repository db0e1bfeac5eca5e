// A Helm chart whose render is large (issue: a 50 MB render stalled the controller): `objects`
// ConfigMaps of `keys` keys whose values are `bytes` long, ~objects x keys x (bytes + 10) bytes of helm
// output from a few hundred bytes of chart. Used by test/e2e/render-large.test.ts and
// `npm run bench:render -- --large`.

/** The chart's files by path under `dir` ('' for the chart at the root). */
export function largeChartFiles(
  objects: number,
  keys: number,
  bytes: number,
  dir = '',
): Record<string, string> {
  const at = (p: string) => (dir === '' ? p : `${dir}/${p}`);
  return {
    [at('Chart.yaml')]: 'apiVersion: v2\nname: large\nversion: 1.0.0\n',
    [at('values.yaml')]: `count: ${objects}\nkeys: ${keys}\nbytes: ${bytes}\n`,
    [at('templates/cm.yaml')]: `{{- range $i := until (int .Values.count) }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: large-{{ $i }}
data:
{{- range $k := until (int $.Values.keys) }}
  k{{ $k }}: {{ repeat (int $.Values.bytes) "x" | quote }}
{{- end }}
{{- end }}
`,
  };
}
