#!/usr/bin/python3
"""tinygpt: a small GPT-style pre-training workload on PyTorch, data parallel
with torch.distributed: on the CPU (gloo) by default, on NVIDIA GPUs with
--device cuda (NCCL, bf16 autocast, fused attention). It logs like NeMo
(DLLogger JSON lines) and Megatron-LM (iteration lines on stdout), so
trainbench's parsers read it as they read the real frameworks. Reference:
docs/workload.md.

Run with the system interpreter, which has Debian's python3-torch:
    /usr/bin/python3 workloads/tinygpt/train.py --steps 30 --dllogger-file dllogger.json
On a GPU node, with an interpreter whose PyTorch has CUDA:
    python3 workloads/tinygpt/train.py --device cuda --precision bf16 ...
"""

import argparse
import contextlib
import datetime
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

PROG = "tinygpt"


class WorkloadError(Exception):
    """A failure with a message for the user (exit code 1)."""


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be a positive number")
    return value


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Small GPT pre-training on CPU or CUDA over mock tokens; DLLogger + Megatron-style logs.",
        epilog="example: /usr/bin/python3 train.py --layers 2 --hidden 128 --heads 4 --ffn 512 "
               "--seq-len 128 --vocab 4096 --micro-batch 8 --global-batch 16 --steps 30 "
               "--dllogger-file logs/dllogger.json")
    p.add_argument("--layers", type=positive_int, default=2, help="transformer blocks (default 2)")
    p.add_argument("--hidden", type=positive_int, default=128, help="hidden size (default 128)")
    p.add_argument("--heads", type=positive_int, default=4, help="attention heads (default 4)")
    p.add_argument("--ffn", type=positive_int, default=None, help="MLP hidden size (default 4 x hidden)")
    p.add_argument("--seq-len", type=positive_int, default=128, help="sequence length (default 128)")
    p.add_argument("--vocab", type=positive_int, default=4096, help="vocabulary size (default 4096)")
    p.add_argument("--micro-batch", type=positive_int, default=8, help="sequences per rank per forward pass (default 8)")
    p.add_argument("--global-batch", type=positive_int, default=16, help="sequences per optimizer step over all ranks (default 16)")
    p.add_argument("--steps", type=positive_int, default=30, help="optimizer steps (default 30)")
    p.add_argument("--lr", type=positive_float, default=3e-3, help="peak learning rate (default 3e-3)")
    p.add_argument("--seed", type=int, default=1234, help="seed of the model and the data (default 1234)")
    p.add_argument("--dllogger-file", default=None, metavar="PATH",
                   help="DLLogger JSON lines file written by rank 0 (default: none)")
    p.add_argument("--log-interval", type=positive_int, default=1, help="steps per Megatron-style line (default 1)")
    p.add_argument("--threads", type=positive_int, default=None,
                   help="torch threads per rank (default: usable cores / ranks on this node, at least 1)")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                   help="fp32, or bf16 autocast on the device (default fp32)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="cpu (gloo between ranks), or cuda: one GPU per rank, LOCAL_RANK's (NCCL) (default cpu)")
    p.add_argument("--attention", choices=["auto", "math", "sdpa"], default="auto",
                   help="math (written out), or sdpa (torch.nn.functional.scaled_dot_product_attention, fused "
                        "kernels on a GPU); auto: sdpa on cuda, math on cpu (default auto)")
    p.add_argument("--pad-vocab-to", type=positive_int, default=1, metavar="N",
                   help="pad the embedding and LM head to a multiple of N rows, as Megatron-LM's "
                        "make-vocab-size-divisible-by (default 1: no padding)")
    p.add_argument("--compile", action="store_true", help="torch.compile the model (PyTorch 2.0+)")
    p.add_argument("--calibrate-seconds", type=float, default=1.0,
                   help="duration of the matmul calibration of the peak (default 1.0; 0 skips it and logs no peak)")
    args = p.parse_args(argv)
    if args.ffn is None:
        args.ffn = 4 * args.hidden
    if not math.isfinite(args.calibrate_seconds) or args.calibrate_seconds < 0:
        p.error(f"argument --calibrate-seconds: '{args.calibrate_seconds}' must be 0 or more")
    if args.hidden % args.heads != 0:
        p.error(f"--hidden {args.hidden} is not divisible by --heads {args.heads}")
    if args.attention == "auto":
        args.attention = "sdpa" if args.device == "cuda" else "math"
    return args


# ------------------------------------------------------------------ distributed setup

def expand_nodelist(nodelist):
    """Host names of a Slurm node list such as 'gpu-[1-2,5],login1'. Uses
    `scontrol show hostnames` when available, else parse_nodelist."""
    if shutil.which("scontrol"):
        try:
            out = subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True, text=True,
                                 timeout=20, check=True).stdout.split()
            if out:
                return out
        except (subprocess.SubprocessError, OSError):
            pass
    return parse_nodelist(nodelist)


def parse_nodelist(nodelist):
    """The common forms of a Slurm host list: 'a,b', 'gpu-[1-3,7]', 'n[01-10]x' (zero padding kept)."""
    hosts = []
    # split at commas outside brackets
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\][^,\[]*)*", nodelist):
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", part)
        if not m:
            hosts.append(part)
            continue
        prefix, ranges, suffix = m.groups()
        for r in ranges.split(","):
            if "-" in r:
                lo, hi = r.split("-", 1)
                width = len(lo)
                for i in range(int(lo), int(hi) + 1):
                    hosts.append(f"{prefix}{i:0{width}d}{suffix}")
            else:
                hosts.append(f"{prefix}{r}{suffix}")
    return hosts


def resolve_host(host):
    """An address for `host`: the name itself when it resolves, else the node's
    NodeAddr from Slurm (test clusters name nodes that DNS does not know)."""
    try:
        socket.getaddrinfo(host, None)
        return host
    except OSError:
        pass
    if shutil.which("scontrol"):
        try:
            out = subprocess.run(["scontrol", "show", "node", "-o", host], capture_output=True, text=True,
                                 timeout=20, check=True).stdout
            m = re.search(r"\bNodeAddr=(\S+)", out)
            if m:
                return m.group(1)
        except (subprocess.SubprocessError, OSError):
            pass
    raise WorkloadError(f"cannot resolve the master host '{host}' (not in DNS and not a Slurm node with NodeAddr)")


def env_int(name):
    value = os.environ.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise WorkloadError(f"environment variable {name}='{value}' is not an integer")


def tasks_on_this_node():
    """Number of ranks on this node from Slurm (SLURM_TASKS_PER_NODE like '2(x2)')
    or torchrun (LOCAL_WORLD_SIZE); None when unknown."""
    local = env_int("LOCAL_WORLD_SIZE")
    if local:
        return local
    tpn = os.environ.get("SLURM_TASKS_PER_NODE") or os.environ.get("SLURM_NTASKS_PER_NODE")
    node_id = env_int("SLURM_NODEID") or 0
    if tpn:
        counts = []
        for part in tpn.split(","):
            m = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part.strip())
            if not m:
                return None
            counts += [int(m.group(1))] * int(m.group(2) or 1)
        if counts:
            return counts[min(node_id, len(counts) - 1)]
    return None


def distributed_env():
    """(rank, world_size, local_rank, master_addr, master_port, launcher) of this process."""
    if os.environ.get("RANK") is not None and os.environ.get("WORLD_SIZE") is not None:
        rank, world = env_int("RANK"), env_int("WORLD_SIZE")
        local = env_int("LOCAL_RANK")
        addr = os.environ.get("MASTER_ADDR") or "127.0.0.1"
        port = env_int("MASTER_PORT") or 29500
        return rank, world, rank if local is None else local, addr, port, "torchrun"
    if os.environ.get("SLURM_PROCID") is not None and os.environ.get("SLURM_NTASKS") is not None:
        rank, world = env_int("SLURM_PROCID"), env_int("SLURM_NTASKS")
        local = env_int("SLURM_LOCALID") or 0
        addr = os.environ.get("MASTER_ADDR")
        if not addr and world > 1:
            nodelist = os.environ.get("SLURM_STEP_NODELIST") or os.environ.get("SLURM_JOB_NODELIST") \
                or os.environ.get("SLURM_NODELIST")
            if not nodelist:
                raise WorkloadError("SLURM_NODELIST is not set: cannot find the master node")
            hosts = expand_nodelist(nodelist)
            if not hosts:
                raise WorkloadError(f"cannot read the node list '{nodelist}'")
            addr = resolve_host(hosts[0])
        port = env_int("MASTER_PORT")
        if port is None:
            job = env_int("SLURM_JOB_ID") or 0
            port = 20000 + job % 20000  # one port per job, so concurrent jobs do not collide
        return rank, world, local, addr or "127.0.0.1", port, "slurm"
    return 0, 1, 0, "127.0.0.1", 0, "single"


# ------------------------------------------------------------------ logging

class DLLogger:
    """NVIDIA DLLogger's JSONStreamBackend layout as NeMo writes it: one
    'DLLL {json}' line per record, flushed per line so a file read while the
    run goes on stays parseable (at most a partial last line)."""

    def __init__(self, path, lock):
        self.start = time.time()
        self.lock = lock
        self.file = None
        if path:
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, exist_ok=True)
            self.file = open(path, "w", encoding="utf-8")

    def log(self, step, data):
        if self.file is None:
            return
        now = datetime.datetime.now().astimezone()
        record = {
            "timestamp": str(now.timestamp()),
            "datetime": str(now),
            "elapsedtime": str(now.timestamp() - self.start),
            "type": "LOG",
            "step": step,
            "data": data,
        }
        line = "DLLL " + json.dumps(record) + "\n"
        with self.lock:
            self.file.write(line)
            self.file.flush()

    def close(self):
        if self.file is not None:
            with self.lock:
                self.file.close()
                self.file = None


def megatron_line(iteration, total, consumed, ms_per_iter, tflops_per_gpu, lr, global_batch, loss, grad_norm,
                  nan_iterations):
    """One Megatron-LM training_log line (current format, facts/log-formats.md §3.1).
    TFLOP/s is printed with 6 decimals instead of 1: CPU figures are small."""
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")
    return (f" [{stamp}]"
            f" iteration {iteration:8d}/{total:8d} |"
            f" consumed samples: {consumed:12d} |"
            f" elapsed time per iteration (ms): {ms_per_iter:.1f} |"
            f" throughput per GPU (TFLOP/s/GPU): {tflops_per_gpu:.6f} |"
            f" learning rate: {lr:.6E} |"
            f" global batch size: {global_batch:5d} |"
            f" lm loss: {loss:.6E} |"
            f" loss scale: 1.0 |"
            f" grad norm: {grad_norm:.3f} |"
            f" number of skipped iterations: {0:3d} |"
            f" number of nan iterations: {nan_iterations:3d} |")


def info(rank, message):
    """Diagnostics go to stderr, prefixed with the rank."""
    print(f"{PROG}[{rank}]: {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ signals

def install_sigterm_handler(lock, rank):
    """SIGTERM (scancel, timeouts) ends the process promptly, even while it waits
    in a collective: the signal is blocked in every thread and a watcher thread
    takes it with sigwait, flushes nothing more than the line being written, and
    exits with 143. Call before torch starts its own threads."""
    signals = {signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, signals)

    def watch():
        signum = signal.sigwait(signals)
        with lock:  # never cut a DLLogger line in half
            try:
                sys.stdout.flush()
            except Exception:
                pass
            os.write(2, f"{PROG}[{rank}]: terminated by signal {signum}, exiting\n".encode())
            os._exit(128 + signum)

    threading.Thread(target=watch, name="sigterm-watch", daemon=True).start()


# ------------------------------------------------------------------ calibration

def calibrate_peak(torch, seconds, precision):
    """TFLOP/s this process reaches on repeated 1024x1024 matmuls in the run's
    precision with its thread count: the CPU peak used for MFU."""
    n = 1024
    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    g = torch.Generator().manual_seed(0)
    a = torch.randn(n, n, generator=g).to(dtype)
    b = torch.randn(n, n, generator=g).to(dtype)
    c = torch.empty(n, n, dtype=dtype)
    torch.matmul(a, b, out=c)  # warm-up
    iterations = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds or iterations < 2:
        torch.matmul(a, b, out=c)
        iterations += 1
        elapsed = time.perf_counter() - start
    return 2.0 * n ** 3 * iterations / elapsed / 1e12


# ------------------------------------------------------------------ training

def learning_rate(step, steps, peak):
    """Linear warm-up over the first 10% of steps (at least 1), then cosine decay to 10% of the peak."""
    warmup = max(1, steps // 10)
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress))))


def usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cuda_device(torch, args, local_rank):
    """The GPU of this rank (LOCAL_RANK's), after checking that PyTorch has CUDA and sees it."""
    if not torch.cuda.is_available():
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        raise WorkloadError(
            f"--device cuda: PyTorch {torch.__version__} sees no CUDA GPU (torch.cuda.is_available() is False"
            f"{'; CUDA_VISIBLE_DEVICES=' + repr(visible) if visible is not None else ''}; "
            f"{'built without CUDA' if torch.version.cuda is None else 'CUDA ' + torch.version.cuda})")
    count = torch.cuda.device_count()
    if local_rank >= count:
        raise WorkloadError(f"local rank {local_rank} has no GPU: this node shows {count} GPU(s)")
    torch.cuda.set_device(local_rank)
    if args.precision == "bf16" and not torch.cuda.is_bf16_supported():
        raise WorkloadError(f"{torch.cuda.get_device_name(local_rank)} does not support bf16")
    return torch.device("cuda", local_rank)


def build_model(torch, args, device, world, local_rank):
    """The model on its device, compiled when asked, wrapped for data parallelism."""
    from model import TinyGPT, padded_vocab
    from torch.nn.parallel import DistributedDataParallel

    if args.attention == "sdpa" and not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        raise WorkloadError(f"--attention sdpa needs PyTorch 2.0 or later; this is {torch.__version__}")
    torch.manual_seed(args.seed)
    model = TinyGPT(args.layers, args.hidden, args.heads, args.ffn, args.seq_len,
                    padded_vocab(args.vocab, args.pad_vocab_to), args.attention)
    parameters = sum(p.numel() for p in model.parameters())
    if device.type == "cuda":
        model = model.to(device)
        model.mask = model.mask.to(device)  # a plain attribute (see model.py), not moved by .to()
    if args.compile:
        if not hasattr(torch, "compile"):
            raise WorkloadError(f"--compile needs PyTorch 2.0 or later; this is {torch.__version__}")
        model = torch.compile(model)
    if world > 1:
        # broadcasts rank 0's weights, all-reduces gradients
        model = DistributedDataParallel(model, device_ids=[local_rank] if device.type == "cuda" else None)
    return model, parameters


def make_optimizer(torch, args, model, device):
    kwargs = {"lr": args.lr, "betas": (0.9, 0.95), "weight_decay": 0.1}
    if device.type == "cuda":
        kwargs["fused"] = True  # one kernel for the whole update
    return torch.optim.AdamW(model.parameters(), **kwargs)


def run(args):
    lock = threading.Lock()
    rank, world, local_rank, master_addr, master_port, launcher = distributed_env()
    if world < 1 or not 0 <= rank < world:
        raise WorkloadError(f"rank {rank} is not within world size {world}")
    install_sigterm_handler(lock, rank)

    per_rank = args.micro_batch * world
    if args.global_batch % per_rank != 0:
        raise WorkloadError(
            f"global batch {args.global_batch} is not divisible by micro batch {args.micro_batch} x "
            f"data-parallel size {world} = {per_rank}; choose a global batch that is a multiple of {per_rank}")
    accumulation = args.global_batch // per_rank
    try:  # open it before the slow start, so a bad path fails at once
        log = DLLogger(args.dllogger_file if rank == 0 else None, lock)
    except OSError as e:
        raise WorkloadError(f"cannot write the DLLogger file '{args.dllogger_file}': {e.strerror}")

    local_ranks = tasks_on_this_node() or (world if launcher != "slurm" else 1)
    threads = args.threads or max(1, usable_cores() // max(1, local_ranks))
    # OpenBLAS (Debian's BLAS for python3-torch) and OpenMP size their pools when loaded.
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    # Idle OpenMP threads sleep instead of spinning: on a shared, oversubscribed machine
    # (ranks of two "nodes" on one host, builds running) spinning made steps 10x slower.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    import torch  # after the checks: importing torch takes seconds
    import torch.distributed as dist

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from data import MockTokens
    from model import megatron_flops_per_iteration, padded_vocab

    torch.set_num_threads(threads)

    cuda = args.device == "cuda"
    if args.precision == "bf16" and not hasattr(torch, "autocast"):
        raise WorkloadError("bf16 needs torch.autocast, which this PyTorch lacks")
    device = cuda_device(torch, args, local_rank) if cuda else torch.device("cpu")

    if world > 1:
        backend = "nccl" if cuda else "gloo"
        os.environ["MASTER_ADDR"] = master_addr
        os.environ["MASTER_PORT"] = str(master_port)
        info(rank, f"joining {world} ranks at {master_addr}:{master_port} ({backend}, {launcher})")
        dist.init_process_group(backend, rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=300))
        args.hard_exit = True  # see the end of run()

    def all_mean(values):
        t = torch.tensor(values, dtype=torch.float64, device=device if cuda else None)
        if world > 1:
            dist.all_reduce(t)
            t /= world
        return t.tolist()

    def barrier():
        if world > 1:
            dist.barrier()

    # Peak: all ranks calibrate at the same time, each with its own threads (or its own GPU),
    # so the figure is what one rank ("one GPU") can reach while its neighbours run too.
    barrier()
    peak_best = None
    if args.calibrate_seconds <= 0:
        peak = 0.0
    elif cuda:
        from device import calibrate_cuda_peak
        dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
        peak, peak_best = calibrate_cuda_peak(torch, args.calibrate_seconds, device, dtype=dtype)
        peak_best = all_mean([peak_best])[0]
    else:
        peak = calibrate_peak(torch, args.calibrate_seconds, args.precision)
    peak = all_mean([peak])[0]

    model, parameters = build_model(torch, args, device, world, local_rank)
    optimizer = make_optimizer(torch, args, model, device)
    data = MockTokens(args.vocab, args.seq_len, args.seed)
    vocab_rows = padded_vocab(args.vocab, args.pad_vocab_to)
    flops_per_step = megatron_flops_per_iteration(args.global_batch, args.seq_len, args.layers, args.hidden,
                                                  args.heads, args.ffn, vocab_rows)
    samples_per_rank = args.global_batch // world

    if rank == 0:
        parameters_record = {
            "global_batch_size": args.global_batch,
            "micro_batch_size": args.micro_batch,
            "world_size": world,
            "data_parallel_size": world,
            "tensor_model_parallel_size": 1,
            "pipeline_model_parallel_size": 1,
            "num_layers": args.layers,
            "hidden_size": args.hidden,
            "num_attention_heads": args.heads,
            "ffn_hidden_size": args.ffn,
            "seq_length": args.seq_len,
            "vocab_size": args.vocab,
            "precision": args.precision,
            "peak_tflops_measured": peak,
            "peak_precision": args.precision,
            "gradient_accumulation_steps": accumulation,
            "threads_per_rank": threads,
            "num_parameters": parameters,
            "max_steps": args.steps,
            "lr": args.lr,
            "seed": args.seed,
            "model_flops_per_step": flops_per_step,
            # the same configuration under NeMo's flattened config names
            "cfg/global_batch_size": args.global_batch,
            "cfg/micro_batch_size": args.micro_batch,
            "cfg/tensor_model_parallel_size": 1,
            "cfg/pipeline_model_parallel_size": 1,
            "cfg/num_layers": args.layers,
            "cfg/hidden_size": args.hidden,
            "cfg/ffn_hidden_size": args.ffn,
            "cfg/num_attention_heads": args.heads,
            "cfg/num_query_groups": args.heads,
            "cfg/encoder_seq_length": args.seq_len,
            "cfg/data/seq_length": args.seq_len,
            "cfg/precision": 32 if args.precision == "fp32" else "bf16-mixed",
        }
        summary = f"{threads} threads per rank"
        if cuda:
            from device import gpu_identity, identity_text
            identity = gpu_identity(torch, local_rank)
            parameters_record.update(identity)
            parameters_record.update({
                "peak_tflops_measured_best": peak_best,
                "peak_measurement": f"torch.matmul of 8192x8192 {args.precision} matrices on each rank's GPU, "
                                    "mean TFLOP/s over the timed batches after a warm-up, mean over ranks",
                "attention": args.attention,
                "compiled": args.compile,
                "make_vocab_size_divisible_by": args.pad_vocab_to,
                "cfg/make_vocab_size_divisible_by": args.pad_vocab_to,
                "vocab_size_padded": vocab_rows,
            })
            summary = f"{identity_text(identity)}; attention {args.attention}{'; torch.compile' if args.compile else ''}"
        if args.calibrate_seconds == 0:  # no calibration, no peak: the report then needs one given
            del parameters_record["peak_tflops_measured"], parameters_record["peak_precision"]
            parameters_record.pop("peak_tflops_measured_best", None)
            parameters_record.pop("peak_measurement", None)
        log.log("PARAMETER", parameters_record)
        print(f"> {PROG}: {parameters} parameters, {args.layers} layers, hidden {args.hidden}, {args.heads} heads, "
              f"ffn {args.ffn}, seq {args.seq_len}, vocab {args.vocab}; world size {world}, micro batch "
              f"{args.micro_batch}, global batch {args.global_batch} ({accumulation} accumulation steps); "
              f"{summary}; {args.precision}; measured peak {peak:.4f} TFLOP/s per rank",
              flush=True)

    losses, nan_iterations = train_loop(torch, args, model, optimizer, data, device, log, rank, world, accumulation,
                                        samples_per_rank, vocab_rows, flops_per_step, all_mean, barrier)

    log.close()
    done = f"done: {args.steps} steps, loss {losses[0]:.4f} -> {losses[-1]:.4f}"
    if cuda:
        done += f"; peak memory allocated {torch.cuda.max_memory_allocated(device) / 2 ** 30:.2f} GiB"
    info(rank, done)
    if world > 1:
        # Every rank is past its last collective once this barrier returns. Tearing the gloo
        # group down (destroy_process_group, or the destructors at interpreter exit) can then
        # block on a peer or on rank 0's TCPStore that has already gone, and a job that
        # trained to the end would hang until its time limit; so main() ends a multi-rank
        # process with os._exit after flushing (also on an error: its peers then see the
        # connection close at once), and nothing is left to tear down.
        barrier()
    if nan_iterations:
        raise WorkloadError(f"{nan_iterations} of {args.steps} steps had a non-finite loss")


def train_loop(torch, args, model, optimizer, data, device, log, rank, world, accumulation, samples_per_rank,
               vocab_rows, flops_per_step, all_mean, barrier):
    """The optimizer steps; returns (losses per step, number of steps with a non-finite loss).
    On a GPU the step's losses stay on the device until its end (one synchronisation per
    step), and the next step's first micro-batch is made while the GPU finishes this one."""
    cuda = device.type == "cuda"
    autocast = (lambda: torch.autocast(device_type=device.type, dtype=torch.bfloat16)) \
        if args.precision == "bf16" else None

    def micro_batch(step, micro):
        # this rank's disjoint shard of the global batch: samples_per_rank consecutive samples
        first = step * args.global_batch + rank * samples_per_rank
        tokens = data.batch(first + micro * args.micro_batch, args.micro_batch)
        return tokens.pin_memory().to(device, non_blocking=True) if cuda else tokens

    model.train()
    interval_time = 0.0
    interval_steps = 0
    nan_iterations = 0
    losses = []
    prefetched = micro_batch(0, 0) if cuda else None
    barrier()
    for step in range(args.steps):
        start = time.perf_counter()
        lr = learning_rate(step, args.steps, args.lr)
        for group in optimizer.param_groups:
            group["lr"] = lr
        optimizer.zero_grad(set_to_none=True)
        loss_sum = 0.0
        for micro in range(accumulation):
            tokens = prefetched if micro == 0 and prefetched is not None else micro_batch(step, micro)
            inputs, targets = tokens[:, :-1], tokens[:, 1:]
            sync = world == 1 or micro == accumulation - 1
            context = model.no_sync() if not sync else contextlib.nullcontext()
            with context:
                if autocast:
                    with autocast():
                        logits = model(inputs)
                    loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, vocab_rows),
                                                             targets.reshape(-1))
                else:
                    logits = model(inputs)
                    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab_rows), targets.reshape(-1))
                (loss / accumulation).backward()
            loss_sum = loss_sum + loss.detach() if cuda else loss_sum + loss.item()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        prefetched = micro_batch(step + 1, 0) if cuda and step + 1 < args.steps else None
        grad_norm = float(grad_norm)
        reduced_loss = all_mean([float(loss_sum) / accumulation])[0]
        if cuda:
            torch.cuda.synchronize(device)
        barrier()
        elapsed = time.perf_counter() - start

        if not math.isfinite(reduced_loss):
            nan_iterations += 1
        losses.append(reduced_loss)
        consumed = (step + 1) * args.global_batch
        interval_time += elapsed
        interval_steps += 1
        if rank == 0:
            log.log(step, {
                "reduced_train_loss": reduced_loss,
                "lr": lr,
                "global_step": float(step),
                "consumed_samples": float(consumed),
                "grad_norm": grad_norm,
                "train_step_timing in s": elapsed,
                "epoch": 0,
            })
            if interval_steps == args.log_interval or step == args.steps - 1:
                per_iter = interval_time / interval_steps
                tflops = flops_per_step / (per_iter * 1e12 * world)
                print(megatron_line(step + 1, args.steps, consumed, per_iter * 1000.0, tflops, lr,
                                    args.global_batch, reduced_loss, grad_norm, nan_iterations), flush=True)
        if interval_steps == args.log_interval:
            interval_time, interval_steps = 0.0, 0
    return losses, nan_iterations


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    code = _run_reporting_errors(args)
    if getattr(args, "hard_exit", False):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _run_reporting_errors(args):
    try:
        run(args)
    except WorkloadError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr, flush=True)
        return 1
    except ImportError as e:
        print(f"{PROG}: error: {e} (python3-torch is installed for /usr/bin/python3; run the workload with it, "
              f"or on a GPU node with the python3 whose PyTorch has CUDA)", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr, flush=True)
        return 130
    except Exception as e:  # a failed collective, an out-of-memory, ...: say what and where
        import traceback
        traceback.print_exc()
        print(f"{PROG}: error: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
