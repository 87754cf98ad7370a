"""Entity retrieval: index canonical names, search mentions, save and reload.

python examples/entity_index.py
"""

import tempfile

from pearl import EntityIndex

names = [
    "The New York Times",
    "New York Post",
    "New York City",
    "The Boston Globe",
    "Los Angeles Times",
    "The Washington Post",
]
index = EntityIndex(index="flat").build(names)
print(index.search(["NYTimes", "LA Times", "washington post"], top_k=2).to_frame())

with tempfile.TemporaryDirectory() as folder:
    index.save(folder)
    again = EntityIndex.load(folder)  # refuses to load with a different model
    again.add(["Chicago Tribune"])  # ids continue after the existing ones
    print(again.search("chicago tribune", top_k=1).to_frame())
