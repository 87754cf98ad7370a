"""One package, one default model: every tool that takes a model defaults to
pearl.DEFAULT_MODEL."""

import inspect

import pearl
from pearl.cli import build_parser


def test_every_tool_defaults_to_the_one_default_model():
    import pearl.dask as pdk

    for tool in (
        pearl.PhraseEncoder,
        pearl.fuzzy_join,
        pearl.EntityIndex,
        pearl.deduplicate,
        pearl.cluster,
        pearl.PhraseEmbedder,
        pearl.evaluate,
        pdk.encode,
        pdk.fuzzy_join,
        pdk.build_index,
        pdk.encode_to_parquet,
        pdk.join_to_parquet,
    ):
        default = inspect.signature(tool).parameters["model"].default
        assert default == pearl.DEFAULT_MODEL, tool


def test_cli_commands_default_to_it():
    parser = build_parser()
    for argv in (
        ["encode", "x"],
        ["similarity", "a", "b"],
        ["join", "l", "r", "--left-on", "a", "--right-on", "b", "-o", "o"],
        ["dedup", "t", "--column", "c", "-o", "o"],
        ["index", "build", "n", "-o", "o"],
    ):
        assert parser.parse_args(argv).model == pearl.DEFAULT_MODEL, argv


def test_default_model_is_offline_and_loads():
    enc = pearl.PhraseEncoder()
    assert enc.name == pearl.DEFAULT_MODEL and enc.embedding_dim > 0


def test_cli_dedup_neighbours_default_to_the_api():
    args = build_parser().parse_args(["dedup", "t", "--column", "c", "-o", "o"])
    assert args.top_k == inspect.signature(pearl.deduplicate).parameters["top_k"].default
    assert args.top_k == inspect.signature(pearl.cluster).parameters["top_k"].default


def test_every_matching_tool_defaults_to_the_combined_matcher():
    import pearl.dask as pdk

    for tool in (
        pearl.fuzzy_join,
        pearl.EntityIndex.search,
        pearl.deduplicate,
        pearl.cluster,
        pdk.fuzzy_join,
        pdk.search,
    ):
        assert inspect.signature(tool).parameters["matcher"].default == "combined", tool
    parser = build_parser()
    for argv in (
        ["join", "l", "r", "--left-on", "a", "--right-on", "b", "-o", "o"],
        ["dedup", "t", "--column", "c", "-o", "o"],
        ["index", "search", "idx", "q"],
    ):
        assert parser.parse_args(argv).matcher == "combined", argv
