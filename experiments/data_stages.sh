# The training data of the shipped recipe, as the run scripts build it: the typed-phrase
# corpus, the augmented pairs and the mined hard negatives in data_out/, each stage skipped
# when its output exists. Sourced by run_candidate_a.sh, run_char_channel.sh and
# run_long.sh from the repository root, after they set PEARL (the pinned `pearl` command)
# and ts (a timestamp); not run on its own.
data_stages() {
  if [ ! -s data_out/corpus/corpus.tsv ]; then
    echo "$(ts) build-corpus"; $PEARL build-corpus -o data_out/corpus --processes 2
  fi
  if [ ! -s data_out/augmented.tsv ]; then
    echo "$(ts) augment"
    $PEARL augment data_out/corpus/corpus.tsv -o data_out/augmented.tsv -m all-MiniLM-L6-v2 \
      --mine-paraphrases
  fi
  if [ ! -s data_out/hard_negatives.tsv ]; then
    echo "$(ts) mine"
    $PEARL mine data_out/corpus/corpus.tsv -o data_out/hard_negatives.tsv -m all-MiniLM-L6-v2
  fi
}
