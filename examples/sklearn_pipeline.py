"""Use phrase embeddings of a string column inside a scikit-learn pipeline.

python examples/sklearn_pipeline.py
"""

import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

from pearl import PhraseEmbedder

jobs = pd.DataFrame(
    {
        "title": [
            "senior software engineer",
            "software developer",
            "backend engineer",
            "data scientist",
            "machine learning engineer",
            "ml researcher",
            "registered nurse",
            "nurse practitioner",
            "icu nurse",
            "accountant",
            "tax accountant",
            "financial controller",
        ]
        * 3,
        "years": list(range(12)) * 3,
    }
)
field = ["tech"] * 6 + ["health"] * 3 + ["finance"] * 3
y = field * 3

features = ColumnTransformer(
    [("title", PhraseEmbedder(n_components=8), "title")], remainder="passthrough"
)
model = make_pipeline(features, LogisticRegression(max_iter=1000))
print("cross-validated accuracy:", cross_val_score(model, jobs, y, cv=3).mean())
print(model.fit(jobs, y)[0].get_feature_names_out()[:3])
