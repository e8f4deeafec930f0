import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';
import { nullRecord } from '../../services/untrusted/keys.ts';

/** The Workload API proto (adapters/workload-api/workload.proto), loaded once. */
const WORKLOAD_PROTO = fileURLToPath(new URL('./workload.proto', import.meta.url));

/** The security header every Workload API call carries (Workload API standard §6.2.1). */
export const SECURITY_HEADER = 'workload.spiffe.io';

let loaded: grpc.GrpcObject | undefined;

function workloadApiPackage(): grpc.GrpcObject {
  loaded ??= grpc.loadPackageDefinition(
    protoLoader.loadSync(WORKLOAD_PROTO, {
      keepCase: true,
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    }),
  );
  return loaded;
}

export function workloadApiClientConstructor(): grpc.ServiceClientConstructor {
  return workloadApiPackage().SpiffeWorkloadAPI as grpc.ServiceClientConstructor;
}

/** `unix:///path`, `unix:/path` and a bare absolute path all name the agent's unix socket. */
export function grpcTarget(socketPath: string): string {
  if (socketPath.startsWith('unix:')) return socketPath;
  if (socketPath.startsWith('/')) return `unix://${socketPath}`;
  return socketPath;
}

/** google.protobuf.Struct (as proto-loader decodes it with `oneofs`) to plain JSON, and back. */
type ProtoValue = {
  kind?: string;
  nullValue?: unknown;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: ProtoStruct;
  listValue?: { values?: ProtoValue[] };
};
type ProtoStruct = { fields?: Record<string, ProtoValue> };

export function structToJson(struct: ProtoStruct | null | undefined): Record<string, unknown> {
  const out = nullRecord();
  for (const [key, value] of Object.entries(struct?.fields ?? {})) out[key] = valueToJson(value);
  return out;
}

function valueToJson(value: ProtoValue): unknown {
  switch (value.kind) {
    case 'numberValue':
      return value.numberValue;
    case 'stringValue':
      return value.stringValue;
    case 'boolValue':
      return value.boolValue;
    case 'structValue':
      return structToJson(value.structValue);
    case 'listValue':
      return (value.listValue?.values ?? []).map(valueToJson);
    default:
      return null;
  }
}

export function jsonToStruct(json: Record<string, unknown>): ProtoStruct {
  return { fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, jsonToValue(v)])) };
}

function jsonToValue(v: unknown): ProtoValue {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(jsonToValue) } };
  return { structValue: jsonToStruct(v as Record<string, unknown>) };
}
