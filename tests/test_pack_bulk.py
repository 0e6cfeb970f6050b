"""``bulk_pack.BulkPacker`` writes the bytes protobuf writes for the same response.

The bulk path serialises a premise's responses by hand (``proto.bulk_pack.BulkPacker``):
each one must equal ``verify_response`` (with ``summary_certificate`` when a summary
certificate is asked for) serialised by protobuf, byte for byte — on real results of
random classes under every member profile, and on results made up to reach the
corners (empty and non-ASCII names, class sizes past 2^14 and past int64, labels
unset, empty reasons, no CPDAG)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causal_oracle import entry as svc
from causal_oracle.entry.families.corr2cause_bulk import FastResult, FastVerdict
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.statements import RelationKind, SurfaceForm
from causal_oracle.proto import bulk_pack, pack

DATA = Path(__file__).resolve().parent / "data"
TEMPLATES = ("{p} directly causes {q}.", "{p} causes something else which causes {q}.",
             "{p} is a cause for {q}, but not a direct one.",
             "{p} directly affects {q}.",
             "There exists at least one collider (i.e., common effect) of {p} and {q}.",
             "There exists at least one confounder (i.e., common cause) of {p} and {q}.")


def _protobuf(r: FastResult, with_certificate: bool) -> bytes:
    response = pack.verify_response(r.summary(), r.profile.value, r.variables,
                                    r.verdict.kind.value)
    if with_certificate:
        response.certificate.CopyFrom(pack.summary_certificate(r.certificate()))
    return response.SerializeToString()


def _premises(name: str, count: int) -> list[str]:
    """The first ``count`` distinct premises of a test sample."""
    out: list[str] = []
    with (DATA / f"{name}.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            premise = json.loads(line)["premise"]
            if premise not in out:
                out.append(premise)
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize("profile", [Profile.CORR2CAUSE, Profile.LOOSE, Profile.STRICT])
def test_real_results_match_protobuf(profile: Profile) -> None:
    service = svc.Service(svc.Limits())
    checked = 0
    for premise in _premises("n5_sample", 12) + _premises("n6_sample", 12):
        names = list(service.pairs().premise_of(premise.strip()).variables)
        hypotheses = [t.format(p=p, q=q) for p in names for q in names if p != q
                      for t in TEMPLATES]
        packer = bulk_pack.BulkPacker()
        for r in service.pairs().verify_fast_many(premise, hypotheses, profile):
            if r is None:
                continue
            for with_certificate in (True, False):
                assert packer.pack(r, with_certificate) == _protobuf(r, with_certificate)
                checked += 1
    assert checked > 1000


def test_results_are_verifys_on_first_and_later_calls() -> None:
    """A result's ``summary()`` and ``certificate()`` are ``Service.verify``'s — on a
    premise's first call and on a later one, which reads the reasons kept with its
    tables — under every member profile."""
    bulk, alone = svc.Service(svc.Limits()), svc.Service(svc.Limits())
    compared = 0
    for premise in _premises("n5_sample", 4) + _premises("n6_sample", 4):
        names = list(bulk.pairs().premise_of(premise.strip()).variables)
        hypotheses = [t.format(p=p, q=q) for p in names for q in names if p != q
                      for t in TEMPLATES]
        for profile in (Profile.CORR2CAUSE, Profile.LOOSE, Profile.STRICT):
            first = bulk.pairs().verify_fast_many(premise, hypotheses, profile)
            assert bulk.pairs().verify_fast_many(premise, hypotheses, profile) == first
            for hypothesis, r in zip(hypotheses, first, strict=True):
                if r is None:
                    continue
                full = alone.verify(premise, hypothesis, profile)
                assert r.summary() == full.summary()
                data = full.verdict.certificate.to_json(full.premise.variables)
                assert r.certificate() == {k: data[k] for k in r.certificate()}
                compared += 1
    assert compared > 1000


def _made_up() -> FastResult:
    verdict = FastVerdict("neutral", 0, 3, 7, True, RelationKind.DIRECT_CAUSE, 3)
    return FastResult(verdict, Profile.LOOSE, (("corr2cause", 0), ("loose", 1), ("strict", None)),
                      "why", ("A", "Bé", ""), SurfaceForm.DIRECTLY_CAUSES,
                      ("A", ""), ([["A", "Bé"]], [["", "A"]]))


@pytest.mark.parametrize("change", [
    {}, {"reason": ""}, {"reason": "ü" * 300}, {"variables": ()}, {"cpdag": ([], [])},
    {"verdict": FastVerdict("entailment", 1, 20000, 20000, False,
                            RelationKind.COMMON_CAUSE, 3)},
    {"verdict": FastVerdict("contradiction", 0, 0, 2**70, False,
                            RelationKind.COMMON_EFFECT, 3)},
    {"verdict": FastVerdict("contradiction", 0, -1, 0, False,
                            RelationKind.INDIRECT_CAUSE, 3)},
    {"profile": Profile.CORR2CAUSE}, {"profile": Profile.STRICT},
    {"labels": ()}, {"pair": ("x" * 200, "y")},
])
def test_corners_match_protobuf(change: dict[str, object]) -> None:
    r = _made_up()._replace(**change)  # type: ignore[arg-type]
    packer = bulk_pack.BulkPacker()
    for _ in range(2):  # the premise's parts written, then reused
        for with_certificate in (True, False):
            assert packer.pack(r, with_certificate) == _protobuf(r, with_certificate)


def test_a_new_premise_is_written_anew() -> None:
    packer, first = bulk_pack.BulkPacker(), _made_up()
    second = first._replace(variables=("X", "Y"), cpdag=([["X", "Y"]], []),
                            verdict=first.verdict._replace(class_size=1))
    for r in (first, second, first):
        assert packer.pack(r, True) == _protobuf(r, True)
