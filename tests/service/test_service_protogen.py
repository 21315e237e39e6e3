"""The committed generated code is exactly what the .proto files give."""

from __future__ import annotations

from importlib import metadata

from service import protogen


def test_regenerating_gives_identical_files(tmp_path):
    fresh = tmp_path / "gen"
    protogen.generate(fresh)
    problems = protogen.differences(fresh, protogen.GEN_DIR)
    recorded = (protogen.GEN_DIR / "GENERATED_BY").read_text().strip()
    assert not problems, (f"service/gen is stale ({recorded}; installed grpcio-tools "
                          f"{metadata.version('grpcio-tools')}): run `python -m service.protogen`\n"
                          + "\n".join(problems))


def test_the_generated_package_has_the_whole_api():
    from service.gen.typhoon.v1 import match_service_pb2

    service = match_service_pb2.DESCRIPTOR.services_by_name["MatchService"]
    assert {m.name for m in service.methods} >= {
        "CreateMatch", "JoinMatch", "GetMatch", "ListLegalActions", "SubmitAction", "WatchMatch", "GetEventLog",
        "ListMatches", "Resign"}
    for method in service.methods:
        assert method.input_type.name == f"{method.name}Request"
        assert method.output_type.name == f"{method.name}Response"


def test_the_shipped_error_detail_protos_are_googles_and_describe_what_the_service_sends():
    """proto/google/rpc/ holds the files other languages decode grpc-status-details-bin with: Google's own
    (those of the googleapis-common-protos package the service uses), and the messages the service sends."""
    from importlib.resources import files

    from google.rpc import error_details_pb2, status_pb2

    for name in ("status.proto", "error_details.proto"):
        shipped = (protogen.PROTO_DIR / "google" / "rpc" / name).read_text()
        assert shipped == (files("google.rpc") / name).read_text(), f"proto/google/rpc/{name} is not the package's"
        assert "Licensed under the Apache License, Version 2.0" in shipped
    assert "message ErrorInfo {" in (protogen.PROTO_DIR / "google/rpc/error_details.proto").read_text()
    assert status_pb2.Status.DESCRIPTOR.full_name == "google.rpc.Status"
    assert error_details_pb2.ErrorInfo.DESCRIPTOR.full_name == "google.rpc.ErrorInfo"
