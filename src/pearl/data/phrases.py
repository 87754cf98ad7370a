"""Lexical phrases (NP, VP, PP, ADVP, ADJP) from a spaCy dependency parse.

spaCy has no constituency parser, so phrases are derived from the dependency tree, as
chunks in the manner of CoNLL-2000:

* NP: spaCy's base noun chunks.
* VP: a verb group: the verb with its auxiliaries, negation, infinitival "to" and the
  adverbs between them ("has not been running", "to buy").
* PP: a preposition with its object's noun chunk ("in New York"). CoNLL-2000 tags only
  the preposition as PP; agreement is therefore measured against PP + following NP.
* ADVP: an adverb with the adverbs modifying it ("very quickly"), outside other phrases.
* ADJP: a predicative adjective with its adverb modifiers ("very small"), outside NPs.
"""

from __future__ import annotations

__all__ = ["extract_spans", "phrase_entity"]

_VERB_GROUP_DEPS = {"aux", "auxpass", "neg"}


def _left_extend(tok, deps: set[str], allowed_pos: set[str] | None = None) -> int:
    """Leftmost index reachable by contiguous children of ``tok`` with the given deps."""
    start = tok.i
    lefts = sorted(
        (c for c in tok.lefts if c.dep_ in deps and (allowed_pos is None or c.pos_ in allowed_pos)),
        key=lambda c: -c.i,
    )
    for c in lefts:
        if c.i == start - 1:
            start = c.i
        else:
            break
    return start


def _verb_group(tok) -> tuple[int, int] | None:
    if tok.pos_ != "VERB" and not (
        tok.pos_ == "AUX"
        and tok.dep_ in {"ROOT", "ccomp", "xcomp", "conj"}
        and not any(c.pos_ == "VERB" for c in tok.children)
    ):
        return None
    members = {tok.i} | {
        c.i for c in tok.lefts if c.dep_ in _VERB_GROUP_DEPS or (c.dep_ == "aux" and c.tag_ == "TO")
    }
    advs = {c.i for c in tok.lefts if c.dep_ == "advmod" and c.pos_ == "ADV"}
    start = tok.i
    while start - 1 in members or (start - 1 in advs and start - 2 in members):
        start -= 1
    return start, tok.i + 1


def extract_spans(doc) -> list[tuple[int, int, str]]:
    """Phrase spans of a parsed spaCy ``Doc`` as ``(start, end, lexical_class)``.

    ``start``/``end`` are token indices (end exclusive). Spans of different classes do
    not overlap except PP, which contains the NP it governs.
    """
    spans: list[tuple[int, int, str]] = []
    covered = [False] * len(doc)
    chunks = {}
    for nc in doc.noun_chunks:
        spans.append((nc.start, nc.end, "NP"))
        chunks[nc.root.i] = (nc.start, nc.end)
        for i in range(nc.start, nc.end):
            covered[i] = True
    for tok in doc:
        vg = _verb_group(tok)
        if vg and not any(covered[i] for i in range(*vg)):
            spans.append((*vg, "VP"))
            for i in range(*vg):
                covered[i] = True
    for tok in doc:
        if tok.dep_ == "prep" and tok.pos_ == "ADP":
            objs = [c for c in tok.rights if c.dep_ == "pobj" and c.i in chunks]
            if objs and chunks[objs[0].i][0] == tok.i + 1:
                spans.append((tok.i, chunks[objs[0].i][1], "PP"))

    def claim(start: int, end: int, label: str) -> None:
        if not any(covered[i] for i in range(start, end)):
            spans.append((start, end, label))
            for i in range(start, end):
                covered[i] = True

    for tok in doc:
        if tok.pos_ == "ADJ" and tok.dep_ in {"acomp", "oprd", "conj", "ROOT", "xcomp"}:
            claim(_left_extend(tok, {"advmod", "npadvmod"}), tok.i + 1, "ADJP")
    for tok in doc:
        if tok.pos_ == "ADV" and tok.dep_ == "advmod" and tok.head.pos_ not in {"ADV", "ADJ"}:
            claim(_left_extend(tok, {"advmod"}, {"ADV"}), tok.i + 1, "ADVP")
    return sorted(spans)


def phrase_entity(doc, start: int, end: int) -> str | None:
    """The NER label of an entity covering exactly the span (a leading determiner may
    lie outside the entity), else None."""
    for ent in doc.ents:
        if ent.end == end and (
            ent.start == start or (ent.start == start + 1 and doc[start].pos_ == "DET")
        ):
            return ent.label_
        if ent.start > end:
            break
    return None
