"""Self-test of the Megatron-Bridge oracle and checker (called by selftest.py): what the
reference README says is there, and planted-bad command lines each rejected for its reason."""
from __future__ import annotations

from pathlib import Path

import bridge_oracle

GOOD = ["run_script.py", "--model_family_name", "llama", "--model_recipe_name", "llama3_70b", "--task", "pretrain",
        "--gpu", "h100", "--compute_dtype", "fp8_cs", "--config_variant", "v2", "--num_gpus", "64",
        "--gpus_per_node", "8", "--data", "mock", "--offline", "--tensor_model_parallel_size", "4",
        "--virtual_pipeline_model_parallel_size", "5", "--global_batch_size", "256", "--max_steps", "50",
        "model.seq_length=8192", "logger.log_interval=1", "train.eval_iters=0"]


def run(expect, ref: Path) -> None:
    v = "06f25c22"
    options = {s for a in bridge_oracle.parser(v, ref)._actions for s in a.option_strings}
    expect({"-g", "--gpu", "-c", "--compute_dtype", "-mr", "-ng", "-vp", "--max_steps"} <= options,
           "Megatron-Bridge: the parser has -g, -c, -mr, -ng, -vp, --max_steps")
    gpu = next(a for a in bridge_oracle.parser(v, ref)._actions if "--gpu" in a.option_strings)
    expect("h200" not in gpu.choices and "h100" in gpu.choices, f"Megatron-Bridge: -g has h100, no h200: {gpu.choices}")
    dtype = next(a for a in bridge_oracle.parser(v, ref)._actions if "-c" in a.option_strings)
    expect(list(dtype.choices) == ["bf16", "fp8_cs", "fp8_mx", "fp8_sc", "nvfp4"], f"Megatron-Bridge: -c {dtype.choices}")
    keys = bridge_oracle.override_keys(v, ref)
    expect(keys.get("model.seq_length", ("",))[0] == "int" and keys.get("logger.log_interval", ("",))[0] == "int",
           "Megatron-Bridge: model.seq_length and logger.log_interval are int keys the scripts set")
    expect(bridge_oracle.command_problems(GOOD, v, ref) == [], f"Megatron-Bridge: a good command is accepted: "
           f"{bridge_oracle.command_problems(GOOD, v, ref)}")

    def rejected(extra: list[str], needle: str, what: str, base: list[str] = GOOD) -> None:
        problems = bridge_oracle.command_problems(base + extra, v, ref)
        expect(any(needle in p for p in problems), f"Megatron-Bridge planted-bad {what}: {problems}")

    rejected(["--tensor_model_paralel_size", "2"], "'--tensor_model_paralel_size' is not an argument", "flag")
    rejected(["model.seq_lenght=8192"], "did you mean 'model.seq_length'", "override key")
    rejected(["train.train_iters=fifty"], "'fifty' is not int", "override value")
    rejected(["--gpu", "h200"], "invalid choice: 'h200'", "GPU (-g has no h200)")
    rejected(["--compute_dtype", "fp8"], "invalid choice: 'fp8'", "compute dtype")
    rejected(["--global_batch_size", "many"], "invalid int value", "flag value")
    rejected(["--compute_dtype", "fp8_mx"], "no per-GPU configuration", "H100 FP8-MX (no such configuration)")
    rejected(["--model_recipe_name", "llama3_13b"], "no per-GPU configuration", "model recipe")
    rejected(["stray"], "'stray' is not an argument", "stray word")
    # the effective configuration: the release's own for the good command, with what the
    # per-GPU configuration sets (LLAMA3_70B_PRETRAIN_CONFIG_H100_FP8_CS_V2: TP4 PP8 VP5 GBS 256)
    eff = bridge_oracle.effective(v, GOOD[1:], ref)
    expect(eff.get("model.pipeline_model_parallel_size") == 8 and eff.get("train.global_batch_size") == 256
           and eff.get("model.sequence_parallel") is True and eff.get("mixed_precision.recipe")
           == "bf16_with_fp8_current_scaling_mixed", f"Megatron-Bridge effective config of llama3_70b h100: {eff}")
    scaled = bridge_oracle.effective(v, [w for w in GOOD[1:] if w not in ("--global_batch_size", "256")], ref)
    small = [*GOOD[1:GOOD.index("--num_gpus")], "--num_gpus", "32",
             *[w for w in GOOD[GOOD.index("--num_gpus") + 2:] if w not in ("--global_batch_size", "256")]]
    expect(bridge_oracle.effective(v, small, ref).get("train.global_batch_size") == 128 and
           scaled.get("train.global_batch_size") == 256,
           "Megatron-Bridge: run_script scales the global batch with the GPU count when none is given")
