"""The device tinygpt runs on: the GPU's identity (name, count, driver and CUDA
versions, clocks where readable) and the matmul calibration of the peak.

Only train.py's CUDA path and flops_check.py use the GPU functions; the CPU
path's calibration is train.calibrate_peak, unchanged.
"""

import os
import re
import shutil
import subprocess
import time

# nvidia-smi --query-gpu fields and the PARAMETER keys they are logged under.
_SMI_FIELDS = [
    ("name", "gpu_smi_name"),
    ("driver_version", "gpu_driver_version"),
    ("pci.bus_id", "gpu_pci_bus_id"),
    ("clocks.sm", "gpu_clock_sm_mhz"),
    ("clocks.max.sm", "gpu_clock_max_sm_mhz"),
    ("clocks.mem", "gpu_clock_mem_mhz"),
    ("clocks.max.mem", "gpu_clock_max_mem_mhz"),
    ("power.limit", "gpu_power_limit_w"),
    ("temperature.gpu", "gpu_temperature_c"),
    ("mig.mode.current", "gpu_mig_mode"),
]


def _number_or_text(text):
    text = text.strip()
    m = re.fullmatch(r"([0-9.]+)(?:\s*(?:MHz|W|C))?", text)
    if m:
        try:
            value = float(m.group(1))
            return int(value) if value.is_integer() else value
        except ValueError:
            pass
    return text


def nvidia_smi(index):
    """The fields of _SMI_FIELDS for GPU `index` (a physical index or a bus id) from
    nvidia-smi, or {} when nvidia-smi is absent or fails."""
    if not shutil.which("nvidia-smi"):
        return {}
    query = ",".join(field for field, _ in _SMI_FIELDS)
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits", "-i",
                              str(index)], capture_output=True, text=True, timeout=30, check=True).stdout
    except (subprocess.SubprocessError, OSError):
        return {}
    lines = [line for line in out.splitlines() if line.strip()]
    if not lines:
        return {}
    values = [v.strip() for v in lines[0].split(",")]
    if len(values) != len(_SMI_FIELDS):
        return {}
    record = {}
    for (_, key), value in zip(_SMI_FIELDS, values):
        if value and not value.startswith("[") and value != "N/A":
            record[key] = _number_or_text(value)
    return record


def driver_version_from_proc():
    """The kernel driver version from /proc/driver/nvidia/version ('NVRM version: ... 580.65.06 ...')."""
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r"Kernel Module(?: for \S+)?\s+([0-9]+(?:\.[0-9]+)+)", text)
    return m.group(1) if m else None


def gpu_identity(torch, local_rank):
    """What this rank's GPU is: torch's device properties, versions, and nvidia-smi's
    clocks and driver when it is there. Keys are DLLogger PARAMETER keys."""
    props = torch.cuda.get_device_properties(local_rank)
    record = {
        "device": "cuda",
        "gpu_device_name": props.name,
        "gpu_count": torch.cuda.device_count(),
        "gpu_compute_capability": f"{props.major}.{props.minor}",
        "gpu_memory_gib": round(props.total_memory / 2 ** 30, 2),
        "gpu_sm_count": props.multi_processor_count,
        "gpu_cuda_version": torch.version.cuda,
        "torch_version": torch.__version__,
    }
    # cudaDeviceProp's clocks are in kHz (0 where the CUDA version no longer reports them)
    for attribute, key in (("clock_rate", "gpu_clock_max_sm_mhz"), ("memory_clock_rate", "gpu_clock_max_mem_mhz")):
        value = getattr(props, attribute, None)
        if isinstance(value, int) and value > 0:
            record[key] = value // 1000
    for attribute, key in (("L2_cache_size", "gpu_l2_cache_bytes"), ("memory_bus_width", "gpu_memory_bus_bits")):
        value = getattr(props, attribute, None)
        if isinstance(value, int) and value > 0:
            record[key] = value
    uuid = getattr(props, "uuid", None)
    if uuid:
        record["gpu_uuid"] = str(uuid)
    cudnn = getattr(torch.backends, "cudnn", None)
    if cudnn is not None and cudnn.is_available():
        record["cudnn_version"] = cudnn.version()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    physical = local_rank
    if visible:
        entries = [e.strip() for e in visible.split(",") if e.strip()]
        if local_rank < len(entries):
            physical = entries[local_rank]
    record.update(nvidia_smi(physical))
    if "gpu_driver_version" not in record:
        driver = driver_version_from_proc()
        if driver:
            record["gpu_driver_version"] = driver
    return record


def identity_text(record):
    """One line for the `> tinygpt:` summary and the check's output."""
    parts = [f"{record.get('gpu_count', '?')} x {record.get('gpu_device_name', '?')}",
             f"{record.get('gpu_memory_gib', '?')} GiB", f"sm_{record.get('gpu_compute_capability', '?')}",
             f"{record.get('gpu_sm_count', '?')} SMs", f"driver {record.get('gpu_driver_version', 'unknown')}",
             f"CUDA {record.get('gpu_cuda_version', '?')}", f"torch {record.get('torch_version', '?')}"]
    clocks = [f"{label} {record[key]} MHz" for key, label in
              (("gpu_clock_sm_mhz", "SM"), ("gpu_clock_max_sm_mhz", "max SM"), ("gpu_clock_mem_mhz", "mem"))
              if key in record]
    if clocks:
        parts.append("clocks " + ", ".join(clocks))
    if "gpu_power_limit_w" in record:
        parts.append(f"power limit {record['gpu_power_limit_w']} W")
    return "; ".join(parts)


def calibrate_cuda_peak(torch, seconds, device, dtype=None, n=8192, batch=10):
    """TFLOP/s this GPU reaches on repeated n x n matmuls in `dtype` (default bf16;
    cuBLAS, dense): the measured peak beside the datasheet's. Warm-up first (clocks ramp, cuBLAS picks
    its kernel), then batches of `batch` matmuls timed with a device sync at each end
    until `seconds` have passed. Returns (mean over the timed batches, best batch)."""
    dtype = dtype or torch.bfloat16
    g = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(n, n, device=device, dtype=dtype, generator=g)
    b = torch.randn(n, n, device=device, dtype=dtype, generator=g)
    c = torch.empty(n, n, device=device, dtype=dtype)
    flop = 2.0 * n ** 3
    warm_until = time.perf_counter() + min(1.0, max(0.2, seconds / 2))
    while time.perf_counter() < warm_until:
        torch.matmul(a, b, out=c)
        torch.cuda.synchronize(device)
    total_time = 0.0
    total_flop = 0.0
    best = 0.0
    while total_time < seconds or total_flop == 0:
        torch.cuda.synchronize(device)
        start = time.perf_counter()
        for _ in range(batch):
            torch.matmul(a, b, out=c)
        torch.cuda.synchronize(device)
        elapsed = time.perf_counter() - start
        total_time += elapsed
        total_flop += flop * batch
        best = max(best, flop * batch / elapsed / 1e12)
    del a, b, c
    return total_flop / total_time / 1e12, best
