/**
 * Hand-written SVG charts (no chart library): columns over days, horizontal bars over named things,
 * and lines. Each mark has a `<title>` (its label and value on hover and to assistive technology), each
 * chart a name, and the numbers it draws in a table beside it.
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

const PAD = { top: 12, right: 16, bottom: 36, left: 64 };

/** A round step for about `parts` gridlines up to `max`. */
function niceStep(max: number, parts = 4): number {
  const raw = max / parts;
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/**
 * Gridline values from 0 to at least `max`, at a round step whose labels all differ once formatted (whole
 * counts up to 2 get 0, 1, 2, not 0, 0.5, 1, 1.5, 2 shown as 0, 1, 1, 2, 2).
 */
function ticksOf(max: number, format: (v: number) => string): number[] {
  for (let step = niceStep(max); ; step = niceStep(step * 1.5, 1)) {
    const ticks = [0];
    while (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
    if (ticks.length === 1) ticks.push(step);
    const labels = ticks.map(format);
    if (new Set(labels).size === labels.length || ticks.length <= 2) return ticks;
  }
}

/**
 * The frame every chart shares: its caption, the drawing, and the table of its numbers. The drawing is
 * laid out at the frame's own width in CSS pixels (followed as it changes), so its text keeps its size
 * whatever the width of the chart.
 */
function ChartFrame(props: {
  title: string;
  testid?: string;
  table: { head: string[]; rows: (string | number)[][] };
  legend?: ComponentChildren;
  children: (width: number) => ComponentChildren;
}) {
  const frame = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(640);
  useLayoutEffect(() => {
    const el = frame.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(240, Math.round(el.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return (
    <figure class="chart" data-testid={props.testid} ref={frame}>
      <figcaption>{props.title}</figcaption>
      {props.children(width)}
      {props.legend}
      <details>
        <summary>Table of “{props.title}”</summary>
        <table class="data compact">
          <caption class="offscreen">{props.title}</caption>
          <thead>
            <tr>
              {props.table.head.map((h) => (
                <th scope="col" key={h}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.table.rows.map((row, i) => (
              <tr key={i}>
                {row.map((cell, j) =>
                  j === 0 ? (
                    <th scope="row" key={j}>
                      {cell}
                    </th>
                  ) : (
                    <td key={j} class="num">
                      {cell}
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** The value axis: gridlines and their labels. */
function YAxis(props: { width: number; ticks: number[]; y: (v: number) => number; format: (v: number) => string }) {
  return (
    <g class="axis" aria-hidden="true">
      {props.ticks.map((t) => (
        <g key={t}>
          <line x1={PAD.left} x2={props.width - PAD.right} y1={props.y(t)} y2={props.y(t)} class="grid" />
          <text x={PAD.left - 8} y={props.y(t) + 4} text-anchor="end">
            {props.format(t)}
          </text>
        </g>
      ))}
    </g>
  );
}

/** Labels under the x axis, thinned so that they do not overlap. */
function XLabels(props: { width: number; labels: string[]; x: (i: number) => number; bottom: number }) {
  // about one label per 60 pixels
  const every = Math.max(1, Math.ceil(props.labels.length / Math.max(2, Math.floor(props.width / 60))));
  return (
    <g class="axis" aria-hidden="true">
      {props.labels.map((label, i) =>
        i % every === 0 ? (
          <text key={i} x={props.x(i)} y={props.bottom + 18} text-anchor="middle">
            {label}
          </text>
        ) : null,
      )}
    </g>
  );
}

/** Columns, one per label (days): `values[i]` over `labels[i]`. */
export function ColumnChart(props: {
  title: string;
  labels: string[];
  values: number[];
  format: (v: number) => string;
  shortLabel?: (label: string) => string;
  testid?: string;
}) {
  const H = 220;
  const bottom = H - PAD.bottom;
  const ticks = ticksOf(Math.max(0, ...props.values), props.format);
  const top = ticks[ticks.length - 1]!;
  const y = (v: number) => bottom - (v / top) * (bottom - PAD.top);
  const short = props.shortLabel ?? ((l: string) => l);
  return (
    <ChartFrame
      title={props.title}
      testid={props.testid}
      table={{ head: ['Day', props.title], rows: props.labels.map((l, i) => [l, props.format(props.values[i] ?? 0)]) }}
    >
      {(W) => {
        const slot = (W - PAD.left - PAD.right) / Math.max(1, props.labels.length);
        const x = (i: number) => PAD.left + slot * i + slot / 2;
        const barWidth = Math.max(1, Math.min(40, slot * 0.7));
        return (
          <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.title}, a column chart; its table follows`}>
            <YAxis width={W} ticks={ticks} y={y} format={props.format} />
            {props.values.map((v, i) => (
              <rect
                key={i}
                class="mark mark-1"
                x={x(i) - barWidth / 2}
                y={y(v)}
                width={barWidth}
                height={bottom - y(v)}
              >
                <title>{`${props.labels[i]}: ${props.format(v)}`}</title>
              </rect>
            ))}
            <line x1={PAD.left} x2={W - PAD.right} y1={bottom} y2={bottom} class="baseline" />
            <XLabels width={W} labels={props.labels.map(short)} x={x} bottom={bottom} />
          </svg>
        );
      }}
    </ChartFrame>
  );
}

/** Horizontal bars, one per named thing (keys, operations), in the order given. */
export function BarChart(props: {
  title: string;
  labels: string[];
  values: number[];
  format: (v: number) => string;
  testid?: string;
}) {
  const row = 28;
  const H = PAD.top + row * Math.max(1, props.labels.length) + 24;
  const ticks = ticksOf(Math.max(0, ...props.values), props.format);
  const top = ticks[ticks.length - 1]!;
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  return (
    <ChartFrame
      title={props.title}
      testid={props.testid}
      table={{ head: ['Name', props.title], rows: props.labels.map((l, i) => [l, props.format(props.values[i] ?? 0)]) }}
    >
      {(W) => {
        // the names take up to a third of the width, at about 6.5 pixels a character
        const left = Math.min(180, Math.round(W / 3));
        const chars = Math.floor((left - 12) / 6.5);
        const x = (v: number) => left + (v / top) * (W - left - PAD.right);
        return (
          <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.title}, a bar chart; its table follows`}>
            <g class="axis" aria-hidden="true">
              {ticks.map((t) => (
                <g key={t}>
                  <line x1={x(t)} x2={x(t)} y1={PAD.top} y2={H - 20} class="grid" />
                  <text x={x(t)} y={H - 6} text-anchor="middle">
                    {props.format(t)}
                  </text>
                </g>
              ))}
            </g>
            {props.values.map((v, i) => (
              <g key={i}>
                <text x={left - 8} y={PAD.top + row * i + row / 2 + 4} text-anchor="end" class="bar-label">
                  {cut(props.labels[i] ?? '', chars)}
                </text>
                <rect class="mark mark-1" x={left} y={PAD.top + row * i + 5} width={x(v) - left} height={row - 10}>
                  <title>{`${props.labels[i]}: ${props.format(v)}`}</title>
                </rect>
              </g>
            ))}
          </svg>
        );
      }}
    </ChartFrame>
  );
}

export interface LineSeries {
  name: string;
  values: (number | null)[];
  dashed?: boolean;
}

/** Lines over labels (days), one per series; a missing value breaks its line. */
export function LineChart(props: {
  title: string;
  labels: string[];
  series: LineSeries[];
  format: (v: number) => string;
  shortLabel?: (label: string) => string;
  testid?: string;
}) {
  const H = 240;
  const bottom = H - PAD.bottom;
  const all = props.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const ticks = ticksOf(Math.max(0, ...all), props.format);
  const top = ticks[ticks.length - 1]!;
  const y = (v: number) => bottom - (v / top) * (bottom - PAD.top);
  const cell = (v: number | null | undefined) => (v == null ? '—' : props.format(v));
  const legend = (
    <ul class="legend">
      {props.series.map((s, n) => (
        <li key={s.name}>
          <svg viewBox="0 0 24 8" class="swatch" aria-hidden="true">
            <line x1="0" x2="24" y1="4" y2="4" class={`line line-${n + 1}${s.dashed ? ' dashed' : ''}`} />
          </svg>
          {s.name}
        </li>
      ))}
    </ul>
  );
  return (
    <ChartFrame
      title={props.title}
      testid={props.testid}
      legend={legend}
      table={{
        head: ['Day', ...props.series.map((s) => s.name)],
        rows: props.labels.map((l, i) => [l, ...props.series.map((s) => cell(s.values[i]))]),
      }}
    >
      {(W) => {
        const slot = (W - PAD.left - PAD.right) / Math.max(1, props.labels.length);
        const x = (i: number) => PAD.left + slot * i + slot / 2;
        const pathOf = (values: (number | null)[]) =>
          values
            .map((v, i) => (v === null ? null : `${i === 0 || values[i - 1] === null ? 'M' : 'L'}${x(i)},${y(v)}`))
            .filter(Boolean)
            .join(' ');
        return (
          <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.title}, a line chart; its table follows`}>
            <YAxis width={W} ticks={ticks} y={y} format={props.format} />
            <line x1={PAD.left} x2={W - PAD.right} y1={bottom} y2={bottom} class="baseline" />
            {props.series.map((s, n) => (
              <g key={s.name}>
                <path d={pathOf(s.values)} class={`line line-${n + 1}${s.dashed ? ' dashed' : ''}`} />
                {s.values.map((v, i) =>
                  v === null ? null : (
                    <circle key={i} cx={x(i)} cy={y(v)} r="3.5" class={`point point-${n + 1}`}>
                      <title>{`${s.name}, ${props.labels[i]}: ${props.format(v)}`}</title>
                    </circle>
                  ),
                )}
              </g>
            ))}
            <XLabels width={W} labels={props.labels.map(props.shortLabel ?? ((l) => l))} x={x} bottom={bottom} />
          </svg>
        );
      }}
    </ChartFrame>
  );
}
