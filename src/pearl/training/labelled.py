"""Labelled matches for fine-tuning: strings in groups of equivalent strings.

A user's labels come as pairs (``left, right, label``: 1 for a match, 0 for a non-match) or
as groups (``text, group``). Pairs become groups by their matching components; a
non-matching pair records two groups known to be different things, which
:func:`epoch_batches` puts in the same batch so they act as hard negatives.
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from pearl._io import not_decodable

__all__ = ["LabelledGroups", "read_labelled", "epoch_batches"]

logger = logging.getLogger(__name__)


@dataclass
class LabelledGroups:
    """Strings with a group id each (same id: same thing), and pairs of groups known to be
    different things."""

    texts: list[str]
    groups: np.ndarray
    different: set[tuple[int, int]] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.texts)

    def fingerprint(self) -> str:
        """A SHA-256 of the strings, their groups and the known differences (what a
        resumed fine-tuning run checks it is given again)."""
        h = hashlib.sha256()
        for t in self.texts:
            h.update(t.encode("utf-8", "surrogatepass") + b"\0")
        h.update(np.asarray(self.groups, dtype=np.int64).tobytes())
        h.update(repr(sorted(self.different)).encode())
        return h.hexdigest()

    @classmethod
    def from_pairs(cls, left, right, labels) -> LabelledGroups:
        """Groups from labelled pairs (1: the same thing, 0: different things)."""
        from pearl._graph import connected_components

        rows = list(zip(left, right, labels, strict=True))
        index: dict[str, int] = {}  # every string, in order of first appearance
        for a, b, _ in rows:
            index.setdefault(a, len(index))
            index.setdefault(b, len(index))
        texts = list(index)
        same = np.array([(index[a], index[b]) for a, b, y in rows if int(y) == 1], dtype=np.int64)
        same = same.reshape(-1, 2)
        # groups numbered in order of first appearance: components come numbered by their
        # smallest node, and the strings are numbered in order of first appearance
        groups = connected_components(len(texts), same[:, 0], same[:, 1])
        gid = dict(zip(texts, groups.tolist(), strict=True))
        different = {
            tuple(sorted((gid[a], gid[b]))) for a, b, y in rows if int(y) == 0 and gid[a] != gid[b]
        }
        return cls(texts, groups, different)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> LabelledGroups:
        """From a table of pairs (``left, right, label``) or of groups (``text, group``)."""
        cols = set(frame.columns)
        if {"left", "right", "label"} <= cols:
            bad = ~frame["label"].isin([0, 1, "0", "1"])
            if bad.any():
                raise ValueError(
                    f"label must be 0 or 1; row {int(np.flatnonzero(bad)[0])} "
                    f"has {frame['label'][bad].iloc[0]!r}"
                )
            return cls.from_pairs(
                frame["left"].astype(str), frame["right"].astype(str), frame["label"].astype(int)
            )
        if {"text", "group"} <= cols:
            group = frame["group"]
            missing = group.isna() | group.astype(str).str.strip().str.lower().isin(_MISSING_IDS)
            if missing.all():
                raise ValueError("every row's group id is missing (blank, NA, null...)")
            if missing.any():  # a blank id would make one entity of unrelated strings
                logger.warning(
                    "dropping %d rows without a group id (blank, NA, null...), e.g. row %d",
                    int(missing.sum()),
                    int(np.flatnonzero(missing.to_numpy())[0]),
                )
                frame = frame[~missing.to_numpy()]
            texts = frame["text"].astype(str).tolist()
            codes, _ = pd.factorize(frame["group"])
            return cls(texts, np.asarray(codes))
        raise ValueError(
            "labelled data needs columns left, right, label (pairs) or text, "
            f"group (groups); got {sorted(cols)}"
        )

    def split(self, fraction: float, seed: int) -> tuple[LabelledGroups, LabelledGroups]:
        """Hold out ``fraction`` of the groups of two or more strings (for validation)."""
        ids, counts = np.unique(self.groups, return_counts=True)
        multi = ids[counts >= 2]
        rng = np.random.default_rng(seed)
        held = (
            set(rng.choice(multi, size=int(round(fraction * len(multi))), replace=False).tolist())
            if len(multi)
            else set()
        )
        keep = np.array([g not in held for g in self.groups.tolist()], dtype=bool)

        def part(mask: np.ndarray) -> LabelledGroups:
            present = set(self.groups[mask].tolist())
            return LabelledGroups(
                [t for t, m in zip(self.texts, mask, strict=True) if m],
                self.groups[mask],
                {p for p in self.different if set(p) <= present},
            )

        return part(keep), part(~keep)


#: group ids that mean "no group" (compared stripped and lower-cased)
_MISSING_IDS = frozenset({"", "na", "n/a", "nan", "null", "none", "<na>", "nat"})


def read_labelled(path: str | Path) -> LabelledGroups:
    """Read labelled matches from a UTF-8 CSV file (see :meth:`LabelledGroups.from_frame`).

    Raises
    ------
    FileNotFoundError
        When ``path`` is not a file.
    ValueError
        When a byte does not decode as UTF-8 (never replaced: the strings are training data).
    """
    if not Path(path).is_file():
        raise FileNotFoundError(f"labelled matches not found: {path}")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except UnicodeDecodeError as exc:
        raise not_decodable(path, "utf-8", exc, "save it as UTF-8") from None
    if "label" in frame.columns:
        frame["label"] = frame["label"].str.strip()
    return LabelledGroups.from_frame(frame)


def epoch_batches(
    data: LabelledGroups, batch_size: int, per_group: int, rng: random.Random
) -> Iterator[list[int]]:
    """One epoch of batches (row ids of ``data``): groups of two or more strings,
    ``per_group`` members each, with the groups they are known to differ from pulled into
    the same batch. A function of ``rng``'s state (which it advances)."""
    members: dict[int, list[int]] = {}
    for i, g in enumerate(data.groups.tolist()):
        members.setdefault(g, []).append(i)
    partners: dict[int, list[int]] = {}
    for a, b in data.different:
        partners.setdefault(a, []).append(b)
        partners.setdefault(b, []).append(a)
    order = [g for g, m in members.items() if len(m) >= 2]
    rng.shuffle(order)
    batch: list[int] = []
    seen: set[int] = set()
    for g in order:
        for h in [g, *partners.get(g, [])]:
            if h in seen or len(batch) >= batch_size:
                continue
            seen.add(h)
            m = members[h][:]
            rng.shuffle(m)
            batch += m[:per_group]
        if len(batch) >= batch_size:
            yield batch[:batch_size]
            batch, seen = [], set()
    if len(set(data.groups[batch].tolist())) >= 2:
        yield batch
