# A bus bandwidth check of one nccl-tests output: the out-of-place busbw of
# the largest message size (seed 000: the 8 GiB line) against the threshold.
tb_check_busbw() {
{{#validate.has_threshold}}
  awk -v t={{validate.threshold_gbs}} '$1 ~ /^[0-9]+$/ && NF >= 12 { last = $8 } END { exit !(last != "" && last + 0 >= t + 0) }' "$1"
{{/validate.has_threshold}}
{{^validate.has_threshold}}
  grep -q 'Avg bus bandwidth' "$1"
{{/validate.has_threshold}}
}
