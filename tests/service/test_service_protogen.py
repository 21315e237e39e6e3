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
