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

# tb_fetch FILE URL: downloads once (an existing non-empty FILE is kept), retrying
# throttling (HTTP 429), server errors and broken transfers with exponential back-off
# ({{prepare.retries}} attempts, first wait {{prepare.retry_delay}} s). Returns 0 when FILE is complete
# (curl checks the length the server announced), 2 when the server says it does not exist
# (404), 1 when every attempt failed. The file appears only whole (written beside it, then moved).
tb_fetch() {
  local file=$1 url=$2 attempt=1 delay={{prepare.retry_delay}} code rc
  [ -s "${file}" ] && return 0
  mkdir -p "$(dirname "${file}")"
  while true; do
    rc=0
    code=$(curl -sSL --connect-timeout 30 -o "${file}.part.${TB_I}" -w '%{http_code}' "${url}") || rc=$?
    if [ "${rc}" -eq 0 ] && [ "${code}" = 200 ]; then
      mv -f "${file}.part.${TB_I}" "${file}"
      return 0
    fi
    rm -f "${file}.part.${TB_I}"
    if [ "${code}" = 404 ]; then
      echo "trainbench: ${url}: not found (HTTP 404)" >&2
      return 2
    fi
    if [ "${attempt}" -ge {{prepare.retries}} ]; then
      echo "trainbench: ${url}: failed after ${attempt} attempts (HTTP ${code:-none}, curl exit ${rc})" >&2
      return 1
    fi
    echo "trainbench: ${url}: HTTP ${code:-none} (curl exit ${rc}), retrying in ${delay} s (attempt ${attempt} of {{prepare.retries}})" >&2
    sleep "${delay}"
    attempt=$((attempt + 1))
    delay=$((delay * 2 > 300 ? 300 : delay * 2))
  done
}

TB_LAST=""

# Completeness: every file this task must leave behind, checked at the end; the task
# fails naming the missing ones, so training never starts on a partial dataset.
tb_missing=()
tb_expect() {
  local f
  for f in "$@"; do
    [ -s "${f}" ] || tb_missing+=("${f}")
  done
}
tb_check_complete() {
  if [ "${#tb_missing[@]}" -gt 0 ]; then
    echo "trainbench: data preparation task ${TB_I} is incomplete; missing or empty:" >&2
    printf '  %s\n' "${tb_missing[@]}" >&2
    exit 1
  fi
  echo "trainbench: data preparation task ${TB_I} complete"
}
{{#prepare.pile}}
TB_NAME=$(printf '%02d' "${TB_I}")
{{#prepare.download}}

# Download shard ${TB_NAME} of the Pile.
tb_fetch "${DATA_DIR}/${TB_NAME}.jsonl.zst" {{prepare.url}}"${TB_NAME}.jsonl.zst" || tb_missing+=("${DATA_DIR}/${TB_NAME}.jsonl.zst")
[ "${#tb_missing[@]}" -eq 0 ] || tb_check_complete
TB_LAST="${DATA_DIR}/${TB_NAME}.jsonl.zst"
{{/prepare.download}}
{{#prepare.extract}}

# Extract it.
zstd -d -f "${DATA_DIR}/${TB_NAME}.jsonl.zst" -o "${DATA_DIR}/${TB_NAME}.jsonl"
TB_LAST="${DATA_DIR}/${TB_NAME}.jsonl"
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

# Download this task's source files. A file the server does not have (404) is skipped, as
# download_slimpajama.py does (the shard count is an upper bound); any other failure, after
# the retries, is a missing file and fails the task once all files were tried.
tb_absent="${DATA_DIR}/absent-${TB_I}.txt"
: > "${tb_absent}.tmp"
for tb_f in "${tb_files[@]}"; do
  tb_rc=0
  tb_fetch "${DATA_DIR}/${tb_f}.jsonl.zst" {{prepare.url}}"/${tb_f}.jsonl.zst" || tb_rc=$?
  if [ "${tb_rc}" -eq 2 ]; then
    echo "${tb_f}" >> "${tb_absent}.tmp"
  elif [ "${tb_rc}" -ne 0 ]; then
    tb_missing+=("${DATA_DIR}/${tb_f}.jsonl.zst")
  fi
done
mv -f "${tb_absent}.tmp" "${tb_absent}"
[ "${#tb_missing[@]}" -eq 0 ] || tb_check_complete
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
TB_LAST="${DATA_DIR}/train_chunk_${TB_I}.jsonl"
{{/prepare.concat}}
TB_INPUT="${DATA_DIR}/train_chunk_${TB_I}.jsonl"
TB_PREFIX="${OUT_DIR}/train_chunk_${TB_I}.jsonl"
{{/prepare.slimpajama}}
# The last file the steps above made.
[ -z "${TB_LAST}" ] || tb_expect "${TB_LAST}"
{{#prepare.preprocess}}

# Tokenize into ${TB_PREFIX}_text_document.{bin,idx} (NeMo's Megatron preprocessing in
# the image). Written under a temporary prefix and renamed into place: a training job
# that has the old files open keeps reading them, never a file being rewritten.
tb_fetch {{prepare.vocab_file}} {{prepare.vocab_url}} || tb_missing+=({{prepare.vocab_file}})
tb_fetch {{prepare.merge_file}} {{prepare.merges_url}} || tb_missing+=({{prepare.merge_file}})
tb_expect "${TB_INPUT}"
[ "${#tb_missing[@]}" -eq 0 ] || tb_check_complete
TB_TMP_PREFIX="${TB_PREFIX}.tmp-${SLURM_JOB_ID:-$$}"
{{{prepare.preprocess_srun_sh}}} \
  {{{prepare.preprocess_sh}}}
for tb_ext in bin idx; do
  mv -f "${TB_TMP_PREFIX}_text_document.${tb_ext}" "${TB_PREFIX}_text_document.${tb_ext}"
done
tb_expect "${TB_PREFIX}_text_document.bin" "${TB_PREFIX}_text_document.idx"
{{#prepare.rm_extracted}}
rm -f "${TB_INPUT}"
{{/prepare.rm_extracted}}
{{/prepare.preprocess}}
tb_check_complete
