"""Deduplicate a column with typos and abbreviations.

python examples/deduplicate_column.py
"""

import pandas as pd

from pearl import cluster, deduplicate

employers = pd.Series(
    [
        "International Business Machines",
        "IBM",
        "I.B.M.",
        "International Busines Machines",
        "Microsoft",
        "Microsoft Corp.",
        "Microsfot",
        "Microsoft Corporation",
        "Microsoft",
        "Alphabet Inc.",
        "Alphabet",
        "Alphabet Inc",
        "Alphabet Inc.",
        "General Electric",
        "General Electric Company",
        "General Electirc",
        "GE",
        None,
    ],
    name="employer",
)

# Every value is mapped to the most frequent spelling of its cluster.
canonical = deduplicate(employers)
print(pd.DataFrame({"employer": employers, "deduplicated": canonical}).to_string())
print(f"\n{employers.nunique()} distinct spellings -> {canonical.nunique()} after deduplication")

# The clusters themselves (missing values get -1). With the defaults (pearl-minilm, the
# combined match probability cut at 0.6) a transposition inside a short name
# ("Microsfot") and acronyms ("IBM", "GE") still stay apart.
labels = cluster(employers)
for lab in sorted(set(labels) - {-1}):
    print(lab, sorted(set(employers[labels == lab])))
