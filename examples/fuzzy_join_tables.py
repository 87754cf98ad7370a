"""Join two tables whose keys are spelled differently.

python examples/fuzzy_join_tables.py
"""

import pandas as pd

from pearl import fuzzy_join

pd.set_option("display.width", 120)

papers = pd.DataFrame(
    {
        "newspaper": ["NYTimes", "the guardian", "Le Monde", "Wall St Journal", "Daily Planet"],
        "articles": [120, 80, 45, 60, 3],
    }
)
reference = pd.DataFrame(
    {
        "name": [
            "The New York Times",
            "The Guardian",
            "Le Monde",
            "The Wall Street Journal",
            "New York Post",
        ],
        "country": ["US", "UK", "FR", "US", "US"],
    }
)

# Left join: every row of `papers` is kept; matches below the threshold get nulls.
print(fuzzy_join(papers, reference, left_on="newspaper", right_on="name", threshold=0.6))

# Inner join with the two best candidates per row.
print(fuzzy_join(papers, reference, left_on="newspaper", right_on="name", top_k=2, how="inner"))
