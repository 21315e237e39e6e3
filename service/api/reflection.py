"""gRPC server reflection under both of its names: ``grpc.reflection.v1`` (what current tools ask for
first) and ``grpc.reflection.v1alpha`` (what older ones ask for).

grpcio-reflection ships only v1alpha. The v1 protocol is the same messages with the same field
numbers in another package, so one servicer answers both: the v1 service decodes and encodes with the
v1alpha classes (identical bytes), and the v1 file descriptor (v1alpha's, renamed) is added to the
pool so that reflection can describe itself under either name.
"""

from __future__ import annotations

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
_V1_FILE = "grpc/reflection/v1/reflection.proto"


def _add_v1_descriptor(pool: descriptor_pool.DescriptorPool) -> None:
    try:
        pool.FindFileByName(_V1_FILE)
        return
    except KeyError:
        pass
    file = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(file)
    file.name, file.package = _V1_FILE, "grpc.reflection.v1"
    for message in file.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                    field.type_name = field.type_name.replace(".grpc.reflection.v1alpha.", ".grpc.reflection.v1.")
    for service in file.service:
        for method in service.method:
            method.input_type = method.input_type.replace(".grpc.reflection.v1alpha.", ".grpc.reflection.v1.")
            method.output_type = method.output_type.replace(".grpc.reflection.v1alpha.", ".grpc.reflection.v1.")
    pool.Add(file)


def enable(service_names: list[str], server: grpc.aio.Server) -> None:
    """Serve reflection (v1 and v1alpha) listing ``service_names`` and both reflection services."""
    _add_v1_descriptor(descriptor_pool.Default())
    names = [*service_names, reflection.SERVICE_NAME, V1_SERVICE_NAME]
    reflection.enable_server_reflection(names, server)
    servicer = reflection.aio.ReflectionServicer(names) if hasattr(reflection, "aio") else None
    if servicer is None:  # pragma: no cover - grpcio-reflection without its aio servicer
        from grpc_reflection.v1alpha._async import ReflectionServicer
        servicer = ReflectionServicer(names)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo, request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        V1_SERVICE_NAME, {"ServerReflectionInfo": handler}),))
