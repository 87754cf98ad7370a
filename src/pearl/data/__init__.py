"""Training data: raw text -> typed phrases.

* :mod:`pearl.data.sources`: readers of the raw-text formats (one stream of lines per file).
* :mod:`pearl.data.phrases`: phrases of the five lexical classes from a dependency parse.
* :mod:`pearl.data.labels`: the 95 phrase-type labels (5 lexical classes x 18 OntoNotes
  types + OTHER).
* :mod:`pearl.data.lexicon`: WordNet lemmas and name lists, typed by their lists.
* :mod:`pearl.data.corpus`: ``build_corpus`` (``pearl build-corpus``) and ``read_corpus``.

The submodules are imported on demand (the corpus builder loads spaCy).
"""
