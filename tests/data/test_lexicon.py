import zipfile

from pearl.data.lexicon import iter_name_lists, iter_wordnet_lemmas, wordnet_entity_type
from pearl.data.sources import SkipReport

# WordNet 3.0 offsets used by the typing rules
CITY, DISTRICT, ORGANIZATION, ETHNIC_GROUP, STRUCTURE = (
    8524735,
    8491826,
    8008335,
    7967382,
    4341686,
)


def _wordnet(tmp_path):
    (tmp_path / "lexnames").write_text(
        "18\tnoun.person\t1\n15\tnoun.location\t1\n14\tnoun.group\t1\n00\tadj.all\t3\n"
    )
    (tmp_path / "data.noun").write_text(
        "  1 licence header\n"
        f"{CITY:08d} 15 n 01 city 0 000 | a large town\n"
        f"00000100 15 n 02 Paris 0 City_of_Light 0 001 @i {CITY:08d} n 0000 | capital\n"
        f"{ORGANIZATION:08d} 14 n 01 organization 0 000 | a group\n"
        f"00000200 14 n 02 agency 0 bureau 0 001 @ {ORGANIZATION:08d} n 0000 | x\n"
        "00000300 14 n 02 Federal_Bureau_of_Investigation 0 FBI 0 001 @ 00000200 n 0000 | x\n"
        "00000400 18 n 01 Chopin 0 001 @i 00000500 n 0000 | a composer\n"
        "00000500 18 n 01 composer 0 000 | someone who composes\n"
        "00000600 18 n 01 Democrat 0 000 | a party member\n"
        "this line is not a synset\n"
    )
    (tmp_path / "data.adj").write_text("00000700 00 s 02 handy 0 ready_to_hand(p) 0 000 | x\n")


def test_wordnet_lemmas_keep_case_and_types(tmp_path):
    _wordnet(tmp_path)
    report = SkipReport()
    rows = {lemma: (lex, ent) for lemma, lex, ent in iter_wordnet_lemmas(tmp_path, report)}
    assert rows["Paris"] == ("NP", "GPE") and rows["City of Light"] == ("NP", "GPE")
    assert rows["Chopin"] == ("NP", "PERSON")
    assert rows["FBI"] == ("NP", "ORG")  # capitalised, under organization.n.01
    assert rows["agency"] == ("NP", None)  # common nouns stay untyped
    assert rows["Democrat"] == ("NP", "NORP")
    assert rows["ready to hand"] == ("ADJP", None)  # syntactic marker (p) removed
    assert report.counts["malformed WordNet line"] == 1
    assert report.counts["unreadable file"] == 2  # no data.verb, no data.adv


def test_entity_type_rules():
    assert wordnet_entity_type("noun.location", {DISTRICT}) == "GPE"
    assert wordnet_entity_type("noun.location", set()) == "LOC"
    assert wordnet_entity_type("noun.object", set()) == "LOC"
    assert wordnet_entity_type("noun.group", {ETHNIC_GROUP}) == "NORP"
    assert wordnet_entity_type("noun.artifact", {STRUCTURE}) == "FAC"
    assert wordnet_entity_type("noun.artifact", set()) is None
    assert wordnet_entity_type("noun.plant", set()) is None
    assert wordnet_entity_type("noun.artifact", {STRUCTURE}, instance=False) is None


def test_name_lists_are_typed_by_list(tmp_path):
    with zipfile.ZipFile(tmp_path / "names.zip", "w") as z:
        z.writestr("names/male.txt", "Aaron\n\n  Abe \n")
        z.writestr("names/README", "not a list")
    with zipfile.ZipFile(tmp_path / "gazetteers.zip", "w") as z:
        z.writestr("gazetteers/countries.txt", "France\n")
        z.writestr("gazetteers/nationalities.txt", "French\n")
    got = list(iter_name_lists(tmp_path))
    assert got == [
        ("Aaron", "names", "PERSON"),
        ("Abe", "names", "PERSON"),
        ("France", "gazetteers", "GPE"),
        ("French", "gazetteers", "NORP"),
    ]


def test_missing_lists_are_reported(tmp_path):
    report = SkipReport()
    assert list(iter_name_lists(tmp_path / "nowhere", report)) == []
    assert list(iter_wordnet_lemmas(tmp_path / "nowhere", report)) == []
    assert report.counts["unreadable file"] == 6
    assert report.counts["no WordNet lexnames file (WordNet lemmas left untyped)"] == 1


def test_missing_lexnames_leaves_lemmas_untyped_and_is_reported(tmp_path):
    _wordnet(tmp_path)
    (tmp_path / "lexnames").unlink()
    report = SkipReport()
    rows = {lemma: ent for lemma, _, ent in iter_wordnet_lemmas(tmp_path, report)}
    assert rows["Paris"] is None and rows["Chopin"] is None
    assert report.counts["no WordNet lexnames file (WordNet lemmas left untyped)"] == 1
