#!/bin/bash -eu
# ClusterFuzzLite/OSS-Fuzz build: the fuzz targets over our own code, each
# with its seed corpus, dictionary and libFuzzer options. The base image
# sets RUSTFLAGS for the chosen sanitizer; `cargo fuzz build -O` adds the
# coverage instrumentation and `--cfg fuzzing`.
cd "$SRC/hsaco-conform"
targets=(oracle_check smem_roundtrip gen_check)
target_dir="$WORK/fuzz-target"
for t in "${targets[@]}"; do
  cargo fuzz build -O --debug-assertions --target-dir "$target_dir" "$t"
done
bin_dir="$target_dir/x86_64-unknown-linux-gnu/release"
for t in "${targets[@]}"; do
  cp "$bin_dir/$t" "$OUT/"
  # Seeds only (descriptive names), not units a local run added.
  find "corpus/seeds/$t" -maxdepth 1 -regextype posix-extended -type f ! -name '.*' \
    ! -regex '.*/[0-9a-f]{40}' -print0 |
    xargs -0 zip -jq "$OUT/${t}_seed_corpus.zip"
  dict="fuzz/dicts/$t.dict"
  if [ -f "$dict" ]; then
    cp "$dict" "$OUT/$t.dict"
  fi
done
# oracle_check checks its memory bound itself on every input (a counting
# allocator); libFuzzer's limits are the backstop for a single huge
# allocation or a leak.
printf '[libfuzzer]\nmalloc_limit_mb = 64\n' > "$OUT/oracle_check.options"
