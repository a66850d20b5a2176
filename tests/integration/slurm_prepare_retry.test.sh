#!/usr/bin/env bash
# Data preparation against a throttling server on the real local Slurm: a local HTTP server
# answers each Pile shard with HTTP 429 (Too Many Requests) twice before serving it; the array
# tasks retry with back-off and the stage completes with every shard downloaded and extracted.
# Then a shard the server never serves (HTTP 503 on every attempt): its task fails after its
# retries, the log names the missing file, the run ends FAILED and training never starts; no
# partial dataset is reported as prepared.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
command -v zstd >/dev/null || { echo "skip: zstd is not installed"; exit 125; }
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 125; }

mkdir -p "$WORK/www"
for s in 00 01 02; do
    for i in $(seq 1 50); do echo "{\"text\": \"shard $s document $i\"}"; done | zstd -q -o "$WORK/www/$s.jsonl.zst"
done
cat >"$WORK/server.py" <<'PY'
import http.server, os, sys, threading
root, throttle, broken = sys.argv[1], int(sys.argv[2]), set(sys.argv[3].split(",")) if sys.argv[3] else set()
seen = {}
lock = threading.Lock()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        name = self.path.rsplit("/", 1)[-1]
        with lock:
            seen[name] = seen.get(name, 0) + 1
            n = seen[name]
        with open(os.path.join(root, "requests.log"), "a") as f:
            f.write(f"{name} {n}\n")
        if name in broken:
            code = 503
        elif n <= throttle:
            code = 429
        else:
            path = os.path.join(root, name)
            if not os.path.exists(path):
                code = 404
            else:
                data = open(path, "rb").read()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
        self.send_response(code)
        self.send_header("Retry-After", "1")
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(os.path.join(root, "port"), "w").write(str(s.server_address[1]))
s.serve_forever()
PY
serve() {  # serve THROTTLE BROKEN: (re)starts the server, sets $port
    if [[ -n ${server_pid:-} ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -f "$WORK/www/port" "$WORK/www/requests.log"
    python3 "$WORK/server.py" "$WORK/www" "$1" "$2" &
    server_pid=$!
    for _ in $(seq 1 100); do [[ -s $WORK/www/port ]] && break; sleep 0.1; done
    port=$(cat "$WORK/www/port")
}
trap '[[ -n ${server_pid:-} ]] && kill "$server_pid" 2>/dev/null; rm -rf "$WORK"' EXIT

cat >"$WORK/train.sh" <<'SH'
#!/bin/sh
for i in $(seq 1 30); do
  echo " iteration $i/ 30 | elapsed time per iteration (ms): 100.0 | learning rate: 1.0E-04 | lm loss: 7.0E+00 |"
done
SH
chmod +x "$WORK/train.sh"
recipe() {  # recipe FILE NAME DATA_DIR
    write_recipe "$1" "$2" local-slurm 1 "[\"$WORK/train.sh\"]" "stages:
  - name: prepare-data
    kind: prepare-data
    options: {dataset: pile, shards: \"0-2\", data_dir: $3, url: \"http://127.0.0.1:$port/train/\",
              preprocess: false, retries: 4, retry_delay: 1, nodes: 2}
  - {name: train, kind: train}"
}

# Throttled twice per shard, then served: retried, complete.
serve 2 ""
recipe "$WORK/ok.yaml" it-prepare-ok "$WORK/data-ok"
id=$(short_id_of "$(tb --json submit "$WORK/ok.yaml")")
dir=$(run_json "$id" | jq -r .dir)
tb wait "$id" --interval 1 >/dev/null ||
    fail "throttled preparation did not complete: $(run_json "$id" | jq -c .stages) $(cat "$dir"/logs/prepare-data/*.err)"
for s in 00 01 02; do
    cmp -s <(zstd -dc "$WORK/www/$s.jsonl.zst") "$WORK/data-ok/$s.jsonl" || fail "shard $s is not whole"
    [[ $(grep -c "^$s.jsonl.zst " "$WORK/www/requests.log") == 3 ]] || fail "shard $s: $(grep -c "^$s" "$WORK/www/requests.log") requests, expected 3"
done
grep -q "HTTP 429.*retrying in 1 s" "$dir"/logs/prepare-data/*.err || fail "no retry in the logs"
grep -q "HTTP 429.*retrying in 2 s" "$dir"/logs/prepare-data/*.err || fail "no back-off (the second wait is not longer)"
echo "throttled: 3 shards complete after 2 x 429 each"

# Shard 01 never served: its task fails naming the missing file; the run fails; no training.
serve 0 "01.jsonl.zst"
recipe "$WORK/bad.yaml" it-prepare-bad "$WORK/data-bad"
id=$(short_id_of "$(tb --json submit "$WORK/bad.yaml")")
dir=$(run_json "$id" | jq -r .dir)
tb wait "$id" --interval 1 >/dev/null 2>&1 && fail "a preparation missing a shard completed"
run_json "$id" | jq -e '.stages[0].state == "FAILED" and .stages[1].state != "COMPLETED"' >/dev/null ||
    fail "states: $(run_json "$id" | jq -c .stages)"
[[ ! -f $dir/status/train.started ]] || fail "training started on a partial dataset"
grep -q "missing or empty" "$dir"/logs/prepare-data/*.err || fail "no completeness failure in the logs: $(tail -n 5 "$dir"/logs/prepare-data/*)"
grep -q "$WORK/data-bad/01.jsonl.zst" "$dir"/logs/prepare-data/*.err || fail "the missing file is not named"
[[ $(grep -c "^01.jsonl.zst " "$WORK/www/requests.log") == 4 ]] || fail "shard 01 tried $(grep -c "^01" "$WORK/www/requests.log") times, expected 4"
[[ $(awk '{print $1}' "$dir/status/prepare-data.exit") != 0 ]] || fail "the stage's exit status says success"
echo ok
