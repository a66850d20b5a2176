# stage {{stage}} (prepare-data, dataset {{prepare.dataset}}): one array task per
# {{#prepare.pile}}Pile shard (the shard number is the array index){{/prepare.pile}}{{#prepare.slimpajama}}concatenated chunk (task i owns every source file k with k mod {{{prepare.chunks}}} = i){{/prepare.slimpajama}}; each task
# runs the enabled steps for its index in order, as the seed's array jobs
# chained with aftercorr do. Output: Megatron .bin/.idx prefixes in the output directory.
TB_I=${SLURM_ARRAY_TASK_ID:?data preparation runs as a Slurm array job}
DATA_DIR={{prepare.data_dir}}
OUT_DIR={{prepare.output_dir}}
mkdir -p "${DATA_DIR}" "${OUT_DIR}"
{{#prepare.has_env}}
{{#prepare.env}}
export {{name}}={{{value_sh}}}
{{/prepare.env}}
{{/prepare.has_env}}

# The tokenizer files, fetched once (the first task to get there writes them).
tb_fetch() {
  [ -s "$1" ] && return 0
  mkdir -p "$(dirname "$1")"
  curl -fL --retry 5 -o "$1.tmp.${TB_I}" "$2" && mv -f "$1.tmp.${TB_I}" "$1"
}
{{#prepare.pile}}
TB_NAME=$(printf '%02d' "${TB_I}")
{{#prepare.download}}

# Download shard ${TB_NAME} of the Pile.
tb_fetch "${DATA_DIR}/${TB_NAME}.jsonl.zst" {{prepare.url}}"${TB_NAME}.jsonl.zst"
{{/prepare.download}}
{{#prepare.extract}}

# Extract it.
zstd -d -f "${DATA_DIR}/${TB_NAME}.jsonl.zst" -o "${DATA_DIR}/${TB_NAME}.jsonl"
{{#prepare.rm_downloaded}}
rm -f "${DATA_DIR}/${TB_NAME}.jsonl.zst"
{{/prepare.rm_downloaded}}
{{/prepare.extract}}
TB_INPUT="${DATA_DIR}/${TB_NAME}.jsonl"
TB_PREFIX="${OUT_DIR}/my-gpt3_${TB_NAME}"
{{/prepare.pile}}
{{#prepare.slimpajama}}
TB_CHUNKS={{{prepare.chunks}}}
tb_files=()
for ((tb_c = 1; tb_c <= {{{prepare.download_chunks}}}; tb_c++)); do
  for ((tb_s = 0; tb_s < {{{prepare.download_shards}}}; tb_s++)); do
    if (( ((tb_c - 1) * {{{prepare.download_shards}}} + tb_s) % TB_CHUNKS == TB_I )); then
      tb_files+=("chunk${tb_c}/example_train_${tb_s}")
    fi
  done
done
{{#prepare.download}}

# Download this task's source files (missing ones are skipped, as download_slimpajama.py does).
for tb_f in "${tb_files[@]}"; do
  mkdir -p "${DATA_DIR}/$(dirname "${tb_f}")"
  [ -s "${DATA_DIR}/${tb_f}.jsonl.zst" ] && continue
  curl -fsL --retry 5 -o "${DATA_DIR}/${tb_f}.jsonl.zst" {{prepare.url}}"/${tb_f}.jsonl.zst" || rm -f "${DATA_DIR}/${tb_f}.jsonl.zst"
done
{{/prepare.download}}
{{#prepare.extract}}

# Extract them.
for tb_f in "${tb_files[@]}"; do
  [ -f "${DATA_DIR}/${tb_f}.jsonl.zst" ] || continue
  zstd -q -d -f "${DATA_DIR}/${tb_f}.jsonl.zst" -o "${DATA_DIR}/${tb_f}.jsonl"
{{#prepare.rm_downloaded}}
  rm -f "${DATA_DIR}/${tb_f}.jsonl.zst"
{{/prepare.rm_downloaded}}
done
{{/prepare.extract}}
{{#prepare.concat}}

# Concatenate them into chunk ${TB_I} of ${TB_CHUNKS}.
: > "${DATA_DIR}/train_chunk_${TB_I}.jsonl.tmp"
for tb_f in "${tb_files[@]}"; do
  [ -f "${DATA_DIR}/${tb_f}.jsonl" ] || continue
  cat "${DATA_DIR}/${tb_f}.jsonl" >> "${DATA_DIR}/train_chunk_${TB_I}.jsonl.tmp"
{{#prepare.rm_extracted}}
  rm -f "${DATA_DIR}/${tb_f}.jsonl"
{{/prepare.rm_extracted}}
done
mv -f "${DATA_DIR}/train_chunk_${TB_I}.jsonl.tmp" "${DATA_DIR}/train_chunk_${TB_I}.jsonl"
{{/prepare.concat}}
TB_INPUT="${DATA_DIR}/train_chunk_${TB_I}.jsonl"
TB_PREFIX="${OUT_DIR}/train_chunk_${TB_I}.jsonl"
{{/prepare.slimpajama}}
{{#prepare.preprocess}}

# Tokenize into ${TB_PREFIX}_text_document.{bin,idx} (NeMo's Megatron preprocessing).
tb_fetch {{prepare.vocab_file}} {{prepare.vocab_url}}
tb_fetch {{prepare.merge_file}} {{prepare.merges_url}}
{{{prepare.preprocess_srun_sh}}} \
  {{{prepare.preprocess_sh}}}
{{#prepare.rm_extracted}}
rm -f "${TB_INPUT}"
{{/prepare.rm_extracted}}
{{/prepare.preprocess}}
