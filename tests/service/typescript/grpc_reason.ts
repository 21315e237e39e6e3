// Reading a refusal's reason over gRPC from Node: the status details (the trailer
// grpc-status-details-bin) are a google.rpc.Status whose `details` hold a google.rpc.ErrorInfo, both
// described by proto/google/rpc/*.proto beside the API's own protos. docs/API.md#errors shows this code;
// tests/service/test_service_typescript.py compiles it with `tsc --strict` and runs it against the service:
//   node grpc_reason.js PROTO_DIR HOST:PORT MATCH_ID SEAT_TOKEN
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";

const [protoDir, address, matchId, token] = process.argv.slice(2);

// the API, for the calls
const api = protoLoader.loadSync("typhoon/v1/match_service.proto", { includeDirs: [protoDir], keepCase: true });
const typhoon = grpc.loadPackageDefinition(api) as unknown as {
  typhoon: { v1: { MatchService: grpc.ServiceClientConstructor } };
};
const client = new typhoon.typhoon.v1.MatchService(address, grpc.credentials.createInsecure());

// google.rpc, for the reason
const rpc = protobuf.loadSync([`${protoDir}/google/rpc/status.proto`, `${protoDir}/google/rpc/error_details.proto`]);
const Status = rpc.lookupType("google.rpc.Status");
const ErrorInfo = rpc.lookupType("google.rpc.ErrorInfo");

interface Refusal { code: string; message: string; domain: string; reason: string; metadata: Record<string, string> }

/** A refused call's gRPC code, sentence, and the ErrorInfo of its status details. */
function refusal(error: grpc.ServiceError): Refusal {
  const answer: Refusal = { code: grpc.status[error.code], message: error.details, domain: "", reason: "", metadata: {} };
  const [details] = error.metadata.get("grpc-status-details-bin");
  if (!(details instanceof Buffer)) return answer;
  // protobufjs names google.protobuf.Any's fields as the proto does: type_url, value
  const status = Status.toObject(Status.decode(details)) as { details?: { type_url: string; value: Uint8Array }[] };
  for (const detail of status.details ?? []) {
    if (detail.type_url === "type.googleapis.com/google.rpc.ErrorInfo") {
      const info = ErrorInfo.toObject(ErrorInfo.decode(detail.value)) as Omit<Refusal, "code" | "message">;
      Object.assign(answer, { domain: info.domain, reason: info.reason, metadata: info.metadata ?? {} });
    }
  }
  return answer;
}

/** Submit an action; the refusal it meets (null if it was accepted). */
function submit(request: Record<string, unknown>, seatToken: string): Promise<Refusal | null> {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${seatToken}`);
  return new Promise((resolve) => {
    client.SubmitAction({ match_id: matchId, ...request }, metadata, (error: grpc.ServiceError | null) => {
      resolve(error ? refusal(error) : null);
    });
  });
}

const stale = await submit({ action: { end_phase: {} }, expected_version: 7 }, token);
const illegal = await submit({ action: { move: { unit: "XL", to: "0201" } }, expected_version: 0 }, token);
const stranger = await submit({ action: { standard_setup: {} } }, "not-a-seat-token");
client.close();
console.log(JSON.stringify({ stale, illegal, stranger }));
