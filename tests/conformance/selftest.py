#!/usr/bin/env python3
"""Self-test of the conformance oracles and checkers, independent of trainbench's renderer.

Each oracle must find what the reference README says is there (and not find what it says is
absent), and each checker must reject a bad argument of its program while accepting the good
ones: a check that cannot fail proves nothing. Prints one line per failed expectation and
`selftest: N passed, M failed`; exits 1 when M > 0.
"""
from __future__ import annotations

import re
import shlex
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import check  # noqa: E402
import launches  # noqa: E402
import oracles  # noqa: E402

passed = 0
failed = 0


def expect(cond: bool, what: str) -> None:
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}")


def flags(oracle: oracles.ArgOracle) -> set[str]:
    return set(oracle.table())


def rejects(argv: list[str], oracle: oracles.ArgOracle, needle: str) -> bool:
    return any(needle in p for p in check.check_args(argv, oracle))


def accepts(argv: list[str], oracle: oracles.ArgOracle) -> list[str]:
    return check.check_args(argv, oracle)


# --- the upstream example scripts' pretrain_gpt.py argv, read statically (never run) -----------

def _logical_lines(text: str) -> list[str]:
    out, buf = [], ""
    for line in text.splitlines():
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        out.append(buf + line)
        buf = ""
    return out


def _shell_arrays(text: str) -> dict[str, list[str]]:
    """NAME=( ... ) and NAME+=( ... ): the words of every assignment of each array, every branch
    of an if included (shell words: quotes removed, `#` comments dropped)."""
    found: dict[str, list[str]] = {}
    name, body = None, []
    for line in text.splitlines():
        if name is None:
            m = re.match(r"^\s*(\w+)\+?=\((.*)$", line)
            if not m:
                continue
            name, rest = m.group(1), m.group(2)
            if re.search(r"\)\s*$", rest) and rest.count("(") < rest.count(")"):
                body = [rest[:rest.rindex(")")]]
            else:
                body = [rest]
                continue
        elif line.strip() != ")":
            body.append(line)
            continue
        lex = shlex.shlex("\n".join(b.rstrip("\\") for b in body), posix=True)
        lex.whitespace_split = True
        lex.commenters = "#"
        found.setdefault(name, []).extend(list(lex))
        name = None
    return found


def _expand(words: list[str], arrays: dict[str, list[str]], seen: tuple[str, ...] = ()) -> list[str]:
    out: list[str] = []
    for w in words:
        m = re.fullmatch(r'"?\$\{(\w+)\[@\]\}"?', w)
        if m:
            if m.group(1) in arrays and m.group(1) not in seen:
                out += _expand(arrays[m.group(1)], arrays, seen + (m.group(1),))
            continue
        out += w.split()  # an unquoted ${ARRAY[@]} is split into words again
    return out


def example_argv(path: Path) -> list[str]:
    """The pretrain_gpt.py argv of an upstream example script: the ${ARRAY[@]} words after the
    entry (pretrain_gpt.py, or a variable holding it) with every assignment of each array."""
    text = path.read_text(encoding="utf-8")
    arrays = _shell_arrays(text)
    entry = [r"\S*pretrain_gpt\.py\S*"] + [r'"?\$\{?' + v + r'\}?"?' for v in
                                           re.findall(r'^\s*(\w+)="?[^"\s]*pretrain_gpt\.py"?\s*$', text, re.M)]
    for line in _logical_lines(text):
        m = re.search(r"(" + "|".join(entry) + r")\s+(.*)$", line)
        if m and "[@]}" in m.group(2):
            return ["pretrain_gpt.py"] + _expand(re.findall(r"\$\{\w+\[@\]\}", m.group(2)), arrays)
    raise SystemExit(f"{path}: no pretrain_gpt.py command")


MEGATRON_EXAMPLES = ["examples/llama/train_llama3_8b_h100_fp8.sh", "examples/mixtral/train_mixtral_8x7b_distributed.sh",
                     "examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh"]


def main() -> int:
    ref = oracles.reference_dir()

    # --- Megatron-LM: arguments.py, strict, allow_abbrev=False
    m1 = oracles.megatron_args("e958b2ca", ref)
    m2 = oracles.megatron_args("878d65f", ref)
    expect(len(m1.options) > 400, f"Megatron-LM e958b2ca: {len(m1.options)} add_argument calls (expected > 400)")
    expect("--use-sharp" in flags(m2) and "--use-sharp" not in flags(m1), "--use-sharp: in 878d65f only (README)")
    expect(not m1.allow_abbrev, "Megatron-LM parse_args: allow_abbrev=False")
    expect(m1.table()["--sequence-parallel"].action == "store_true", "--sequence-parallel is store_true")
    good = ["pretrain_gpt.py", "--num-layers", "2", "--data-path", "1", "/a", "1", "/b", "--sequence-parallel",
            "--tokenizer-type", "GPT2BPETokenizer", "--lr", "6.0e-5", "--lr-warmup-fraction", ".001",
            "--save", "${TRAINBENCH_RUN_DIR}/ckpt", "--init-method-std=0.006"]
    expect(accepts(good, m1) == [], f"Megatron-LM: a good argv is accepted: {accepts(good, m1)}")
    expect(rejects(["p", "--no-such-flag", "1"], m1, "'--no-such-flag' is not an argument"), "Megatron-LM rejects --no-such-flag")
    expect(rejects(["p", "--micro-batch", "1"], m1, "'--micro-batch'"), "Megatron-LM rejects an abbreviation")
    expect(rejects(["p", "--sequence-parallel", "1"], m1, "unrecognized positional"), "store_true + value: stray word")
    expect(rejects(["p", "--tokenizer-type", "Gpt2"], m1, "choices"), "Megatron-LM checks literal choices")
    expect(rejects(["p", "--micro-batch-size"], m1, "needs"), "a value-taking flag without a value")
    expect(not rejects(["p", "--tokenizer-type", "${T}"], m1, "choices"), "placeholders are not checked against choices")
    pre = oracles.megatron_preprocess_args("e958b2ca", ref)
    expect("--tokenizer-type" in flags(pre), "tools/preprocess_data.py has _add_tokenizer_args' flags (imported)")
    expect(pre.allow_abbrev, "tools/preprocess_data.py: argparse default allow_abbrev=True")
    expect(accepts(["x", "--input", "i", "--output-pre", "o", "--workers", "1"], pre) == [],
           "argparse abbreviations are accepted where allow_abbrev is on")
    expect(rejects(["x", "--input", "i", "--output-prefix", "o"], pre, "--workers is required"), "required options")

    # --- Megatron-LM d98e8a64: flags generated from config dataclasses (ArgumentGroupFactory)
    m3 = oracles.megatron_args("d98e8a64", ref)
    f3 = flags(m3)
    for flag in ("--num-layers", "--hidden-size", "--num-query-groups", "--norm-epsilon", "--disable-bias-linear",
                 "--fp8-format", "--fp8-recipe", "--fp4-format", "--fp4-recipe", "--moe-router-topk",
                 "--expert-model-parallel-size", "--expert-tensor-parallel-size", "--mtp-num-layers", "--q-lora-rank",
                 "--no-gradient-accumulation-fusion", "--te-rng-tracker", "--profile", "--save-interval",
                 "--persistent-save-interval", "--tokenizer-metadata", "--inference-wandb-logging",
                 "--no-inference-wandb-logging", "--no-fp8-wgrad", "--disable-fp8-wgrad"):
        expect(flag in f3, f"Megatron-LM d98e8a64 accepts {flag}")
    for flag in ("--layernorm-epsilon", "--add-bias-linear", "--fp8", "--num-moe-experts", "--timers",
                 "--moe-layer-freq-x", "--use-nsys-profiler", "--fp8-wgrad"):
        expect(flag not in f3, f"Megatron-LM d98e8a64 has no {flag} (renamed, excluded or never there)")
    expect(m3.table()["--fp8-recipe"].choices == ("tensorwise", "delayed", "mxfp8", "blockwise", "custom"),
           f"--fp8-recipe: the Literal's choices ({m3.table()['--fp8-recipe'].choices})")
    expect(m3.table()["--disable-bias-linear"].action == "store_false", "--disable-bias-linear: store_false")
    expect(m3.table()["--num-layers"].type == "int", "--num-layers: int")
    expect(m3.table()["--rampup-batch-size"].nargs == 3, "--rampup-batch-size: nargs 3 from argparse_meta")
    for rel in MEGATRON_EXAMPLES:
        argv = example_argv(ref / "Megatron-LM@d98e8a64" / rel)
        words = [w for w in argv if w.startswith("--")]
        problems = accepts(argv, m3)
        expect(len(words) > 50 and problems == [],
               f"Megatron-LM d98e8a64 accepts every flag of {rel} ({len(words)} flags): {problems}")
        if "megatron_fsdp" in rel:  # Megatron-FSDP, the flex dispatcher, ... came after e958b2ca
            expect(rejects(argv, m1, "'--use-megatron-fsdp' is not an argument"),
                   f"Megatron-LM e958b2ca rejects {rel}'s --use-megatron-fsdp")
    expect(rejects(["p", "--moe-router-top-k", "2"], m3, "'--moe-router-top-k' is not an argument"),
           "Megatron-LM d98e8a64 rejects a misspelled flag")
    expect(rejects(["p", "--fp8-recipe", "mxfp4"], m3, "choices"), "Megatron-LM d98e8a64 checks --fp8-recipe's choices")

    # --- metaseq: options.py + dataclasses, by component
    comps = {"task": "dummy_lm", "arch": "transformer_lm_megatron", "optimizer": "adam",
             "lr_scheduler": "polynomial_decay", "criterion": "vocab_parallel_cross_entropy"}
    ms = oracles.metaseq_args("f7ffa5f", comps, ref)
    st = oracles.metaseq_args("f7ffa5f", {**comps, "task": "streaming_language_modeling"}, ref)
    expect("--sample-break-mode" not in flags(ms) and "--sample-break-mode" in flags(st),
           "--sample-break-mode: StreamingLanguageModelingConfig only, not DummyLMConfig (README)")
    expect("--dict-size" in flags(ms) and "--dict-size" not in flags(st), "--dict-size: dummy_lm only")
    expect([p.dest for p in st.positionals] == ["data"], "streaming_language_modeling: `data` is positional")
    for flag in ("--decoder-layers", "--megatron-init-sigma", "--adam-betas", "--end-learning-rate",
                 "--model-parallel-size", "--memory-efficient-fp16", "--ddp-backend", "--batch-size", "--max-sentences",
                 "--arch", "-a", "--task", "--optimizer", "--lr-scheduler", "--criterion"):
        expect(flag in flags(ms), f"metaseq dummy_lm/transformer_lm_megatron accepts {flag}")
    expect("--no-save" not in flags(ms), "metaseq f7ffa5f has no --no-save (fairseq's CheckpointConfig.no_save is gone)")
    expect(ms.table()["--save-last-checkpoint"].action == "store_false",
           "a bool field defaulting True becomes a store_false flag of the same name (no --no- form)")
    expect(ms.table()["--ddp-backend"].choices == ("c10d", "fully_sharded", "pytorch_ddp"), "ChoiceEnum choices")
    expect("--tokens-per-sample" in flags(ms) and "--max-target-positions" not in flags(ms),
           "II() defaults without help are skipped (added elsewhere)")
    expect(rejects(["train.py", "--task", "dummy_lm", "--sample-break-mode", "none"], ms, "--sample-break-mode"),
           "metaseq rejects --sample-break-mode with dummy_lm")
    expect(rejects(["t", "--ddp-backend", "fsdp"], ms, "choices"), "metaseq checks ChoiceEnum values")
    bad_task = oracles.metaseq_args("f7ffa5f", {}, ref)
    expect(bad_task.unknown_components == ["--task translation"], "no --task: the default 'translation' has no oracle")

    # --- nccl-tests: getopt_long
    nc = oracles.nccl_tests_args("2.19.6", ref)
    expect({"-b", "-e", "-f", "-g", "--minbytes", "--op", "--output_file", "-h"} <= flags(nc), "nccl-tests options")
    expect(accepts(["all_reduce_perf", "-b", "8", "-e", "8G", "-f", "2", "-g", "1"], nc) == [], "nccl-tests: seed 000's line")
    expect(accepts(["all_reduce_perf", "-b8", "--maxbytes=8G", "--stepf", "2", "-hg1"], nc) == [],
           "getopt: attached values, --long=value, unique long prefixes, clusters")
    expect(rejects(["all_reduce_perf", "-Q", "1"], nc, "no option -Q") or rejects(["all_reduce_perf", "-Q", "1"], nc, "'-Q'"),
           "nccl-tests rejects an unknown short option")
    expect(rejects(["all_reduce_perf", "--bogus", "1"], nc, "'--bogus'"), "nccl-tests rejects an unknown long option")
    expect(rejects(["all_reduce_perf", "-b", "8", "extra"], nc, "ignores it"), "nccl-tests: stray words are reported")

    # --- values: the parsers' own types and choices
    expect(rejects(["p", "--num-layers", "banana"], m1, "'banana' is not an int"), "Megatron-LM: --num-layers banana")
    expect(rejects(["p", "--num-layers", "banana"], m3, "'banana' is not an int"), "Megatron-LM d98e8a64: --num-layers banana")
    expect(rejects(["p", "--lr", "fast"], m3, "is not a float"), "Megatron-LM: --lr fast")
    expect(accepts(["p", "--lr", "1e-4", "--num-layers", "1_0", "--rotary-base", "1000000"], m3) == [],
           "Python int()/float() texts are accepted (1e-4, 1_0)")
    expect(rejects(["p", "--sequence-parallel", "1"], m1, "--sequence-parallel takes no value"),
           "a store_true flag given a value")
    expect(rejects(["p", "--sequence-parallel=true"], m1, "takes no value"), "a store_true flag given --x=value")
    expect(rejects(["p", "--fp8-recipe", "delay"], m3, "did you mean 'delayed'"), "choices: a did-you-mean")
    expect(rejects(["p", "--rampup-batch-size", "1", "2"], m3, "needs 3 value(s)"), "nargs=3 from argparse_meta")
    expect(rejects(["all_reduce_perf", "-g", "notanumber"], nc, "is not an integer"), "nccl-tests -g notanumber")
    expect(rejects(["all_reduce_perf", "-b", "8X"], nc, "is not a size"), "nccl-tests -b 8X")
    expect(accepts(["all_reduce_perf", "-b", "8", "-e", "8G", "-i", "1.5k", "-g", "0x2", "-o", "sum", "-d", "bfloat16"], nc) == [],
           "nccl-tests sizes with suffixes, strtol integers (hex), op and datatype names")
    expect(rejects(["all_reduce_perf", "-o", "summ"], nc, "did you mean 'sum'"), "nccl-tests -o: the op names")

    # --- the launchers: torchrun (Debian python3-torch) and srun (srun(1) of the installed Slurm)
    tr = oracles.torchrun_args()
    expect(accepts(["torchrun", "--nproc_per_node", "8", "--nnodes", "2", "--rdzv_id", "${SLURM_JOB_ID}",
                    "--rdzv_backend", "c10d", "--rdzv_endpoint", "h:1", "--standalone"], tr) == [],
           f"torchrun {tr.version}: seed 002's options")
    expect(rejects(["torchrun", "--nproc_per_node", "8", "--no-such", "1"], tr, "'--no-such'"), "torchrun rejects --no-such")
    expect(rejects(["torchrun", "--standalone=1"], tr, "takes no value"), "torchrun --standalone is a flag (check_env, nargs=0)")
    sr = oracles.srun_args()
    expect(accepts(["srun", "--ntasks-per-node=8", "--mpi=pmix", "--kill-on-bad-exit=1", "-K1", "-N", "2", "--exclusive",
                    "--time=00:10:00"], sr) == [], f"srun {sr.version}: the options the renders pass")
    expect(rejects(["srun", "--ntasks-per-nod=8", "--no-such-opt=1"], sr, "'--no-such-opt=1'"), "srun rejects --no-such-opt")
    expect(rejects(["srun", "--ntask=8"], sr, "ambiguous"), "srun: an ambiguous prefix (getopt_long)")

    # --- NeMo: key sets and ExpManagerConfig
    for version, present, absent in (("22.06", [], ["create_dllogger_logger"]),
                                     ("23.07", ["create_dllogger_logger"], []),
                                     ("24.07", ["create_dllogger_logger", "checkpoint_callback_params.async_save"], [])):
        keys = {f.key for f in oracles.exp_manager_schema(version, ref)}
        for k in present:
            expect(k in keys, f"ExpManagerConfig {version} has {k}")
        for k in absent:
            expect(k not in keys, f"ExpManagerConfig {version} has no {k} (README)")
    for version, absent in (("22.06", ["model.virtual_pipeline_model_parallel_size", "model.context_parallel_size", "model.fp8"]),
                            ("23.07", ["model.context_parallel_size"])):
        gpt = oracles.load_yaml_keys(oracles.gpt_config_path(version, ref))
        for k in absent:
            expect(k not in gpt, f"megatron_gpt_config {version} has no {k} (README)")
    # NeMo r2.0.0rc1's own megatron_gpt_config has no context_parallel_size either (v2.0.0 neither);
    # the seed's gpu-recipes config has it, and NeMo reads it (model_trainer_keys is the union)
    k24 = oracles.nemo_key_sets("24.07", ref)
    expect("model.context_parallel_size" not in k24.gpt and "model.context_parallel_size" in k24.launcher,
           "24.07: model.context_parallel_size is in gpu-recipes' config, not in megatron_gpt_config r2.0.0rc1")
    from omegaconf import OmegaConf
    schema = OmegaConf.structured(oracles.exp_manager_structured("22.06", ref))
    try:
        OmegaConf.merge(schema, {"resume_if_exists": "perhaps"})
        expect(False, "ExpManagerConfig 22.06 rejects a non-bool resume_if_exists")
    except Exception:  # noqa: BLE001
        expect(True, "")

    # --- NeMo: compose onto the default config (no delivered file), key checks
    with tempfile.TemporaryDirectory() as tmp:
        stage = launches.Stage("selftest", "selftest.yaml", "train", "train", "nemo", "22.06", [], Path(tmp))

        def nemo_rejections(version: str, overrides: list[str]) -> list[str]:
            stage.framework_version = version
            report = check.Report()
            report.reject = lambda s, p, m: report.rejected.append(m)  # type: ignore[method-assign]
            report.note = lambda s, p, m: None  # type: ignore[method-assign]
            cmd = launches.Command("nemo", version, ["megatron_gpt_pretraining.py", *overrides])
            check.check_nemo_command(report, stage, cmd, ref)
            return report.rejected

        ok = nemo_rejections("22.06", ["trainer.num_nodes=${NNODES}", "model.micro_batch_size=4",
                                       "exp_manager.explicit_log_dir=${TRAINBENCH_RUN_DIR}/logs"])
        expect(ok == [], f"NeMo 22.06: plain overrides compose: {ok}")
        r = nemo_rejections("22.06", ["model.context_parallel_size=1"])
        expect(any("does not compose" in m for m in r), "NeMo 22.06: model.context_parallel_size=1 does not compose (README)")
        r = nemo_rejections("22.06", ["+model.no_such_key=1"])
        expect(any("'model.no_such_key'" in m for m in r), "NeMo: a key NeMo does not read is rejected")
        r = nemo_rejections("22.06", ["++exp_manager.create_dllogger_logger=True"])
        expect(any("ExpManagerConfig" in m for m in r), "NeMo 22.06: exp_manager.create_dllogger_logger is rejected")
        r = nemo_rejections("22.06", ["model.micro_batch_size=banana"])
        expect(any("'banana' is not an integer" in m for m in r), f"NeMo: model.micro_batch_size=banana: {r}")
        r = nemo_rejections("23.07", ["trainer.precision=bf17"])
        expect(any("did you mean 'bf16'" in m for m in r), f"NeMo: trainer.precision=bf17 (a did-you-mean): {r}")
        r = nemo_rejections("23.07", ["trainer.precision=bf16-mixed", "model.activation=swiglu",
                                      "model.normalization=rmsnorm", "model.position_embedding_type=rope"])
        expect(r == [], f"NeMo 23.07: Lightning 2.0's bf16-mixed and the config's own options are taken: {r}")
        r = nemo_rejections("22.06", ["trainer.precision=bf16-mixed"])
        expect(any("'bf16-mixed' is not one of" in m for m in r), f"NeMo 22.06 (Lightning 1.x): no bf16-mixed: {r}")
        r = nemo_rejections("23.07", ["model.normalization=RMSNorm"])
        expect(any("did you mean 'rmsnorm'" in m for m in r), f"NeMo: the normalization the comment lists: {r}")
        r = nemo_rejections("22.06", ["+model.tokenizer.vocab_file.bogus=1"])
        expect(any("'model.tokenizer.vocab_file.bogus'" in m and "is a leaf" in m for m in r),
               f"NeMo: a key under a null default is not open: {r}")
        r = nemo_rejections("22.06", ["model.optim.lr=3", "trainer.max_steps=20"])
        expect(r == [], f"NeMo: an int where the default is a float is a number: {r}")
        r = nemo_rejections("22.06", ["exp_manager.resume_if_exists=perhaps"])
        expect(any("does not merge" in m for m in r), "NeMo: a mistyped exp_manager value does not merge")
        r = nemo_rejections("24.07", ["+model.context_parallel_size=1", "++exp_manager.create_dllogger_logger=True",
                                      "+exp_manager.dllogger_logger_kwargs.json_file=/x"])
        expect(r == [], f"NeMo 24.07 (r2.0.0rc1, tp_overlap group beside it) accepts these: {r}")
        r = nemo_rejections("24.07", ["model.context_parallel_size=1"])
        expect(any("does not compose" in m for m in r), "NeMo 24.07: model.context_parallel_size=1 needs '+'")
    # --- Megatron-Bridge (bridge_selftest.py)
    import bridge_selftest  # noqa: PLC0415

    bridge_selftest.run(expect, ref)
    # --- the `trainbench render --argv` reader, with a stand-in binary (the option is new)
    with tempfile.TemporaryDirectory() as tmp:
        fake = Path(tmp) / "trainbench"
        gpt = oracles.gpt_config_path("23.07", ref)
        fake.write_text(f"""#!/bin/sh
# render RECIPE -o DIR | render RECIPE --argv
if [ "$3" = "-o" ]; then mkdir -p "$4/train/cfg" && cp '{gpt}' "$4/train/cfg/nemo-config.yaml"; exit 0; fi
cat <<'EOF'
[{{"recipe": "fake", "file": "$2", "stage": "train", "kind": "train", "framework": "nemo",
  "framework_version": "23.07", "commands": [
  {{"program": "nemo", "version": "23.07", "config_dir": "cfg", "config_name": "nemo-config",
    "argv": ["/opt/NeMo/examples/nlp/language_modeling/megatron_gpt_pretraining.py",
             "--config-path=${{TRAINBENCH_RUN_DIR}}/rendered/train/cfg", "--config-name=nemo-config",
             "trainer.max_steps=5", "+model.bogus=1"]}},
  {{"program": "nccl-tests", "version": "2.19.6", "argv": ["all_reduce_perf", "-b", "8", "-Z"]}},
  {{"program": "other", "version": "", "argv": ["dcgmi", "diag", "-r", "3"]}}]}}]
EOF
""")
        fake.chmod(0o755)
        report = check.Report()
        lines: list[str] = []
        report.reject = lambda s, p, m: lines.append(f"{s.stage} {p}: {m}")  # type: ignore[method-assign]
        report.note = lambda s, p, m: None  # type: ignore[method-assign]
        ok = check.check_recipes(["fake.yaml"], str(fake), ref, [], report, Path(tmp) / "out")
        expect(ok and report.checked == 2 and report.unchecked == 1, "--argv: two commands checked, one other")
        expect(any("nemo" in x and "'model.bogus'" in x for x in lines), f"--argv: the delivered config is found: {lines}")
        expect(any("nccl-tests" in x and "-Z" in x for x in lines), f"--argv: nccl-tests' -Z is rejected: {lines}")
        expect(not any("max_steps" in x for x in lines), "--argv: a good override is accepted")
    # --- TorchTitan 0.2.2: its own ConfigManager on planted-bad TOML and command lines
    import torchtitan_check as tt
    with tempfile.TemporaryDirectory() as tmp:
        good = Path(tmp) / "good.toml"
        good.write_text('[model]\nname = "llama3"\nflavor = "8B"\n[training]\nsteps = 5\n'
                        '[quantize.linear.float8]\nrecipe_name = "tensorwise"\n')
        cfg, why = tt.parse(ref, ["--job.config_file", str(good), "--compile.enable", "--training.gc_freq", "3"])
        expect(cfg is not None and cfg.training.steps == 5 and cfg.compile.enable and cfg.training.gc_freq == 3,
               f"TorchTitan: a good TOML and overrides parse: {why}")
        for name, text, needle in (("key", "[training]\nstepz = 5\n", "stepz"),
                                   ("section", "[trainin]\nsteps = 5\n", "trainin")):
            bad = Path(tmp) / f"{name}.toml"
            bad.write_text(text)
            cfg, why = tt.parse(ref, ["--job.config_file", str(bad)])
            expect(cfg is None and needle in why, f"TorchTitan refuses an unknown TOML {name}: {why}")
        cfg, why = tt.parse(ref, ["--job.config_file", str(good), "--training.stepz", "5"])
        expect(cfg is None and "--training.stepz" in why, f"TorchTitan (tyro) refuses --training.stepz: {why}")
        cfg, why = tt.parse(ref, ["--job.config_file", str(good), "--training.gc_freq", "banana"])
        expect(cfg is None and "banana" in why, f"TorchTitan (tyro) refuses --training.gc_freq banana: {why}")
        r = tt.type_problems(ref, {"training": {"steps": "ten", "max_norm": 1}, "quantize": {"linear": {
            "float8": {"recipe_name": "tensorwyse"}}}})
        expect(any("training.steps = 'ten'" in m for m in r) and any("tensorwyse" in m for m in r)
               and not any("max_norm" in m for m in r), f"TorchTitan: TOML values against annotations: {r}")
        shape = tt.flavor_shape(ref, "llama3", "8B")
        expect(shape and shape["ffn"] == 14336 and shape["vocab"] == 128256, f"llama3 8B flavour: {shape}")
        expect(tt.flavor_shape(ref, "qwen3", "30B-A3B")["experts"] == 128, "qwen3 30B-A3B: 128 experts")
        expect(tt.flavor_shape(ref, "llama3", "7B") is None, "llama3 has no 7B flavour")
        r = tt.shape_problems(shape, {"layers": 40, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336,
                                      "vocab": 128256, "rope_theta": 500000})
        expect(r == ["layers: the flavour has 32, the model 40"], f"a 40-layer model is not llama3 8B: {r}")
    # --- TorchTitan b5bcd76c: the registry function, tyro with manager.py's rules, the function's facts
    import torchtitan_main_check as tm
    base = ["--module", "llama3", "--config", "llama3_8b"]
    cfg, fn, why = tm.parse(ref, base + ["--compile.enable", "--compile.components", "model,loss",
                                         "--training.steps", "5", "--debug.seed", "None"])
    expect(cfg is not None and fn == "llama3_8b" and cfg.compile.components == ["model", "loss"]
           and cfg.training.steps == 5 and cfg.training.max_context_length == 8192,
           f"TorchTitan b5bcd76c: flags parse over llama3_8b's config (A,B a list): {why}")
    for words, needle in ((["--training.stepz", "5"], "--training.stepz"),
                          (["--training.gc-freq", "banana"], "banana"),
                          (["--checkpoint.interval", "5"], "--checkpoint.interval")):
        cfg, _, why = tm.parse(ref, base + words)
        expect(cfg is None and needle in why, f"TorchTitan b5bcd76c (tyro) refuses {words}: {why}")
    cfg, _, why = tm.parse(ref, ["--module", "llama3", "--config", "llama3_7b"])
    expect(cfg is None and "llama3_7b" in why, f"TorchTitan b5bcd76c refuses --config llama3_7b: {why}")
    facts = tm.function_facts(ref, "llama3_8b_mxfp8")
    expect(facts["flavor"] == "8B" and facts["converters"] == ["MXFP8LinearConverter"] and facts["ac"] == "SelectiveAC",
           f"llama3_8b_mxfp8 derives from llama3_8b, with MXFP8: {facts}")
    expect(tm.flavor_shape(ref, "70B")["ffn"] == 28672, "llama3 70B's FFN from compute_ffn_hidden_dim's arguments")
    recipe = {"model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "vocab": 128256, "ffn": 14336},
              "precision": "bf16", "recompute": {"granularity": "selective"}}
    hf = ["--hf-assets-path", "/w/assets/hf/Llama-3.1-8B"]
    expect(tm.problems(ref, base + hf, recipe) == [], "llama3_8b is the 8B bf16 selective recipe")
    r = tm.problems(ref, base + hf + ["--training.max_norm", "0.5"], recipe)
    expect(r and "--training.max-norm" in r[0], f"--training.max_norm is not tyro's help spelling: {r}")
    r = tm.problems(ref, ["--module", "llama3", "--config", "llama3_70b"] + hf, recipe)
    expect(any("layers 80" in m for m in r) and any("FullAC" in m for m in r) and any("Llama-3.1-70B" in m for m in r),
           f"llama3_70b is not the 8B recipe: {r}")
    print(f"selftest: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
