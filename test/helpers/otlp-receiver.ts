/**
 * Test helper: a loopback OTLP/HTTP trace receiver (`POST /v1/traces`), the stand-in for an
 * OpenTelemetry collector. It decodes both encodings the exporter sends: OTLP/JSON, and OTLP protobuf
 * (a reader of the few fields of `ExportTraceServiceRequest` the tests check: ids, name, kind,
 * attributes), into one flat list of spans.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** The request's content type: `application/json` or `application/x-protobuf`. */
  encoding: string;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request's path and content type. */
  requests: { path: string; contentType: string }[];
  /** The spans of `traceId`, once `until` holds for them (polled; rejects after `ms`). */
  trace(traceId: string, until: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

// ---- OTLP/JSON ------------------------------------------------------------------------------------

type JsonAnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
};
type JsonKeyValue = { key: string; value: JsonAnyValue };
type JsonSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: JsonKeyValue[];
};
type JsonRequest = { resourceSpans?: { scopeSpans?: { spans?: JsonSpan[] }[] }[] };

function jsonValue(v: JsonAnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(jsonValue);
  return undefined;
}

function fromJson(body: Buffer): Omit<ReceivedSpan, 'encoding'>[] {
  const request = JSON.parse(body.toString('utf8')) as JsonRequest;
  return (request.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        kind: s.kind,
        attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, jsonValue(a.value)])),
      })),
    ),
  );
}

// ---- OTLP protobuf --------------------------------------------------------------------------------

type Field = { no: number; wire: number; bytes?: Buffer; int?: bigint };

/** The fields of one protobuf message, in order (varints as bigint, length-delimited as bytes). */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buf[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (at < buf.length) {
    const key = Number(varint());
    const no = key >> 3;
    const wire = key & 7;
    if (wire === 0) {
      out.push({ no, wire, int: varint() });
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      out.push({ no, wire, bytes: buf.subarray(at, at + size) });
      at += size;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ no, wire, bytes: buf.subarray(at, at + length) });
      at += length;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
  return out;
}

const each = (buf: Buffer, no: number) => fields(buf).filter((f) => f.no === no);

/** An AnyValue: string 1, bool 2, int 3, double 4, array 5. */
function protoValue(buf: Buffer): unknown {
  const [f] = fields(buf);
  if (!f) return undefined;
  if (f.no === 1) return f.bytes!.toString('utf8');
  if (f.no === 2) return f.int === 1n;
  if (f.no === 3) return Number(BigInt.asIntN(64, f.int!));
  if (f.no === 4) return f.bytes!.readDoubleLE(0);
  if (f.no === 5) return each(f.bytes!, 1).map((v) => protoValue(v.bytes!));
  return undefined;
}

/** ExportTraceServiceRequest → ResourceSpans (1) → ScopeSpans (2) → Span (2). */
function fromProtobuf(body: Buffer): Omit<ReceivedSpan, 'encoding'>[] {
  const spans = each(body, 1).flatMap((rs) => each(rs.bytes!, 2).flatMap((ss) => each(ss.bytes!, 2)));
  return spans.map(({ bytes }) => {
    const span = fields(bytes!);
    const hex = (no: number) => span.find((f) => f.no === no)?.bytes?.toString('hex') ?? '';
    const attributes = span
      .filter((f) => f.no === 9)
      .map((kv) => {
        const parts = fields(kv.bytes!);
        const key = parts.find((p) => p.no === 1)!.bytes!.toString('utf8');
        const value = parts.find((p) => p.no === 2);
        return [key, value ? protoValue(value.bytes!) : undefined] as const;
      });
    return {
      traceId: hex(1),
      spanId: hex(2),
      parentSpanId: hex(4),
      name: span.find((f) => f.no === 5)?.bytes?.toString('utf8') ?? '',
      kind: Number(span.find((f) => f.no === 6)?.int ?? 0n),
      attributes: Object.fromEntries(attributes),
    };
  });
}

// ---- the server -----------------------------------------------------------------------------------

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ path: req.url ?? '', contentType });
      const body = Buffer.concat(chunks);
      const decoded = /json/.test(contentType) ? fromJson(body) : fromProtobuf(body);
      spans.push(...decoded.map((s) => ({ ...s, encoding: contentType })));
      // an empty ExportTraceServiceResponse, in the request's encoding
      res.writeHead(200, { 'content-type': contentType }).end(/json/.test(contentType) ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async trace(traceId, until, ms = 15_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = spans.filter((s) => s.traceId === traceId);
        if (until(found)) return found;
        if (Date.now() > deadline) {
          const names = found.map((s) => s.name).join(', ');
          throw new Error(`trace ${traceId}: condition not met; received: ${names || 'nothing'}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
