"""Fresh items: train/test by the hash of an item's key, exclusion, provenance.

A generator keys its items so that two items asking the *same question* share a key
(the Corr2Cause family's: the premise's class up to relabelling and the relation asked
on canonical indices, ``entry.families.corr2cause_generator_keys``).  What a key is
for is the same for every generator, and lives here:

* the **split** (``split_of``): a fixed fraction of keys by their hash is "test", so an
  item and every renaming of it always land on the same side;
* **exclusion**: a key is the unit left out (``generate --exclude FILE…`` keeps
  published test items out);
* **provenance** (``provenance``): the fields a generated row carries — generator
  version, seed, key, split and the digest of its checked certificate.

    >>> split_of("c2c:0123") in ("train", "test"), split_of("k", 1.0), split_of("k", 0.0)
    (True, 'test', 'train')
    >>> sorted(provenance("c2c:0123", 7, {"kind": "witness"}))
    ['certificate_digest', 'generator', 'key', 'seed', 'split']
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from typing import Any

#: bump when the generator's items change for the same options and seed
GENERATOR_VERSION = 1
TEST_FRACTION = 0.1


def digest(value: Any) -> str:
    """SHA-256 (hex) of ``value``'s canonical JSON (sorted keys, no spaces; sets and
    tuples as lists)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=list)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_of(key: str, test_fraction: float = TEST_FRACTION) -> str:
    """``"test"`` for a fixed ``test_fraction`` of keys (by their hash), else ``"train"``."""
    bucket = int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) / 2 ** 32
    return "test" if bucket < test_fraction else "train"


def generator_version() -> str:
    """``causal-oracle X.Y.Z generator N``."""
    try:
        version = metadata.version("causal-oracle")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree
        version = "unknown"
    return f"causal-oracle {version} generator {GENERATOR_VERSION}"


def provenance(key: str, seed: int, certificate: Any, test_fraction: float = TEST_FRACTION
               ) -> dict[str, Any]:
    """The provenance fields of a generated row: ``generator``, ``seed``, ``key``,
    ``split`` and ``certificate_digest`` (SHA-256 of the checked certificate's JSON)."""
    return {"generator": generator_version(), "seed": seed, "key": key,
            "split": split_of(key, test_fraction), "certificate_digest": digest(certificate)}


__all__ = ["GENERATOR_VERSION", "TEST_FRACTION", "digest", "generator_version", "provenance",
           "split_of"]
