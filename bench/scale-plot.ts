// The picture bench:scale draws of its curve (`--plot FILE`): seconds to all Ready and Healthy beside the
// kubectl floor, and each process's peak RSS, against the number of Releases on a log scale. A plain SVG
// of polylines, written by hand: two charts need no plotting library. Pure.

export type ScalePoint = {
  readonly releases: number;
  readonly seconds: number;
  readonly floorSeconds: number;
  /** Peak RSS in MiB. */
  readonly manager: number;
  readonly observer: number;
};

type Series = { readonly name: string; readonly colour: string; readonly values: readonly number[] };

const W = 420;
const H = 260;
const PAD = { left: 56, right: 30, top: 28, bottom: 40 };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** One chart: the series against releases (log x), at horizontal offset `dx`. */
function chart(
  title: string,
  unit: string,
  xs: readonly number[],
  series: readonly Series[],
  dx: number,
): string {
  const all = series.flatMap((s) => s.values);
  const top = Math.max(1, ...all) * 1.1;
  const lx = xs.map((x) => Math.log10(Math.max(1, x)));
  const [lo, hi] = [Math.min(...lx), Math.max(...lx)];
  const px = (i: number) =>
    dx + PAD.left + (hi === lo ? 0.5 : ((lx[i] ?? lo) - lo) / (hi - lo)) * (W - PAD.left - PAD.right);
  const py = (v: number) => PAD.top + (1 - v / top) * (H - PAD.top - PAD.bottom);
  const out: string[] = [
    `<text x="${dx + W / 2}" y="16" text-anchor="middle" font-weight="bold">${esc(title)}</text>`,
    `<line x1="${dx + PAD.left}" y1="${H - PAD.bottom}" x2="${dx + W - PAD.right}" y2="${H - PAD.bottom}" stroke="#888"/>`,
    `<line x1="${dx + PAD.left}" y1="${PAD.top}" x2="${dx + PAD.left}" y2="${H - PAD.bottom}" stroke="#888"/>`,
    `<text x="${dx + 12}" y="${PAD.top + 4}">${esc(unit)}</text>`,
    `<text x="${dx + PAD.left}" y="${PAD.top - 4}" font-size="10">${Math.round(top)}</text>`,
    `<text x="${dx + W / 2}" y="${H - 8}" text-anchor="middle">Releases (log scale)</text>`,
  ];
  xs.forEach((x, i) => {
    out.push(`<text x="${px(i)}" y="${H - PAD.bottom + 14}" text-anchor="middle" font-size="10">${x}</text>`);
  });
  series.forEach((s, k) => {
    const points = s.values.map((v, i) => `${px(i).toFixed(1)},${py(v).toFixed(1)}`).join(' ');
    out.push(
      `<polyline class="series" data-name="${esc(s.name)}" fill="none" stroke="${s.colour}" stroke-width="2" points="${points}"/>`,
    );
    for (const [i, v] of s.values.entries())
      out.push(`<circle cx="${px(i).toFixed(1)}" cy="${py(v).toFixed(1)}" r="3" fill="${s.colour}"/>`);
    out.push(
      `<text x="${dx + PAD.left + 8}" y="${PAD.top + 14 + 14 * k}" fill="${s.colour}" font-size="11">${esc(s.name)}</text>`,
    );
  });
  return out.join('\n');
}

/** The SVG of a curve; points in any order (drawn by the number of Releases). */
export function scalePlot(points: readonly ScalePoint[]): string {
  const p = [...points].sort((a, b) => a.releases - b.releases);
  const xs = p.map((q) => q.releases);
  const charts: readonly [string, string, readonly [string, string, (q: ScalePoint) => number][]][] = [
    [
      'Seconds to all Ready and Healthy',
      's',
      [
        ['convoy', '#1f6feb', (q) => q.seconds],
        ['kubectl floor', '#6e7781', (q) => q.floorSeconds],
      ],
    ],
    [
      'Peak RSS per process',
      'MiB',
      [
        ['controller-manager', '#cf222e', (q) => q.manager],
        ['observer', '#8250df', (q) => q.observer],
      ],
    ],
  ];
  const drawn = charts.map(([title, unit, series], i) =>
    chart(
      title,
      unit,
      xs,
      series.map(([name, colour, value]) => ({ name, colour, values: p.map(value) })),
      i * W,
    ),
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
${drawn.join('\n')}
</svg>
`;
}
